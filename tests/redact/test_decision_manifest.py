"""A redacted decision folder gets its own receipt (decision.toml's replacements) and its own manifest."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.attest.manifest import build_manifest
from evidence_kit.model import Manifest, Receipt
from evidence_kit.read import read_json_model
from evidence_kit.redact import redact_bundle

from .conftest import KEY


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_decision_receipt_is_the_decision_folders_own(raw_decision: Path, tmp_path: Path) -> None:
    (raw_decision / "notes.txt").write_text("operator notes on gpu-node-17\n")
    result = redact_bundle(raw_decision, tmp_path / "pub", key=KEY)
    receipt = read_json_model(result.out / "receipt.json", Receipt)
    assert receipt.key_id == result.key_id
    assert receipt.counts == {}  # decision.toml holds prose, no identity; each trial's receipt counts its own files
    assert [w.path.split("-")[0] for w in receipt.withheld or []] == ["path"]  # the notes, withheld under a pseudonym
    assert not (result.out / "notes.txt").exists()


def test_decision_manifest_lists_everything_nested_manifests_included(raw_decision: Path, tmp_path: Path) -> None:
    result = redact_bundle(raw_decision, tmp_path / "pub", key=KEY)
    manifest = read_json_model(result.out / "manifest.json", Manifest)
    assert manifest == build_manifest(result.out)
    paths = {entry.path for entry in manifest.files}
    assert {"decision.toml", "receipt.json", "cache-layout/manifest.json", "dflash/receipt.json"} <= paths
    assert "manifest.json" not in paths


def test_redacting_a_redacted_decision_changes_no_byte(raw_decision: Path, tmp_path: Path) -> None:
    first = redact_bundle(raw_decision, tmp_path / "first", key=KEY)
    again = redact_bundle(first.out, tmp_path / "again", key=KEY)
    assert again.publishable
    assert _tree(again.out) == _tree(first.out)  # the decision receipt's counts carry forward


def test_a_leak_leaves_no_decision_manifest(raw_decision: Path, tmp_path: Path, monkeypatch) -> None:
    """Whatever the scan finds, a decision folder marked not publishable has no manifest at any level."""
    from evidence_kit.redact import run as redact_run
    from evidence_kit.redact.scanner import Finding

    monkeypatch.setattr(redact_run, "scan_files", lambda *args, **options: [Finding("decision.toml", 7, "host", "known")])
    result = redact_bundle(raw_decision, tmp_path / "out", key=KEY)
    assert not result.publishable
    assert list(result.out.rglob("manifest.json")) == []
    assert (result.out / "NOT-PUBLISHABLE.txt").is_file() and (result.out / "receipt.json").is_file()
