"""A redacted decision folder is covered by its own manifest: decision.toml, its trials, anything added."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from .test_site_tamper import _failed


def _verify(run_cli, folder: Path):
    """Integrity only: the folder is unsigned, and these tests are about its manifests."""
    return run_cli("verify", folder, "--allow-unpinned")


def _edit_toml(old: str, new: str) -> Callable[[Path], None]:
    """Replace ``old`` (a regular expression) once in the folder's decision.toml."""

    def edit(folder: Path) -> None:
        path = folder / "decision.toml"
        text = path.read_text()
        assert re.search(old, text), old
        path.write_text(re.sub(old, new, text, count=1))

    return edit


def _rmtree(rel: str) -> Callable[[Path], None]:
    return lambda folder: shutil.rmtree(folder / rel)


def _rename(rel: str, new: str) -> Callable[[Path], None]:
    return lambda folder: (folder / rel).rename(folder / new)


def _add(rel: str) -> Callable[[Path], None]:
    return lambda folder: (folder / rel).write_text("Adopted: 40% faster.\n")


def _unlink(rel: str) -> Callable[[Path], None]:
    return lambda folder: (folder / rel).unlink()


CASES: dict[str, tuple[Callable[[Path], None], set[str], str]] = {
    # case: (edit, checks that must fail, a text that must name the file)
    "edited-title": (_edit_toml('title = "', 'title = "Adopted: '), {"digests"}, "decision.toml: sha256 is"),
    "trial-dropped-from-list": (
        _edit_toml(r'trials = \[\s*"cache-layout",\s*"dflash",?\s*\]', 'trials = ["cache-layout"]'),
        {"digests"},
        "decision.toml: sha256 is",
    ),
    "listed-trial-deleted": (_rmtree("dflash"), {"complete", "contract"}, "dflash/trial.json: listed in"),
    "trial-renamed": (_rename("dflash", "dflash-2"), {"complete", "contract"}, "dflash-2/trial.json: present but not listed"),
    "file-added-at-top": (_add("notes.txt"), {"complete"}, "notes.txt: present but not listed in"),
    "file-added-in-a-trial": (_add("dflash/notes.txt"), {"complete"}, "dflash/notes.txt: present but not listed in"),
    "decision-manifest-removed": (_unlink("manifest.json"), {"complete"}, "manifest.json: missing: a redacted decision folder"),
    "decision-receipt-removed": (
        _unlink("receipt.json"),
        {"complete", "receipts"},
        "receipt.json: the decision folder is published without a receipt",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_decision_folder_tampering_fails(run_cli, redacted: Path, case: str) -> None:
    edit, checks, needle = CASES[case]
    edit(redacted)
    result = _verify(run_cli, redacted)
    failed = _failed(result)
    assert result.code == 1, result.out
    assert checks <= set(failed), result.out
    assert f"{redacted}/{needle}" in result.out, result.out


def test_redacted_decision_folder_verifies(run_cli, redacted: Path) -> None:
    result = _verify(run_cli, redacted)
    assert result.code == 0, result.out
    assert "PASS complete" in result.out and "listed by every manifest above it" in result.out
    manifest = json.loads((redacted / "manifest.json").read_text())
    assert {"decision.toml", "receipt.json", "dflash/manifest.json"} <= {e["path"] for e in manifest["files"]}


def test_file_added_in_a_trial_is_named_by_both_manifests(run_cli, redacted: Path) -> None:
    (redacted / "dflash" / "notes.txt").write_text("x\n")
    problems = _failed(_verify(run_cli, redacted))["complete"]
    assert any(f"{redacted}/dflash/manifest.json" in line for line in problems)
    assert any(line.endswith(f"{redacted}/manifest.json") for line in problems)


def test_receipt_counting_a_file_the_decision_folder_lacks(run_cli, redacted: Path) -> None:
    from evidence_kit.attest.manifest import write_manifest

    receipt = json.loads((redacted / "receipt.json").read_text())
    receipt["counts"]["ghost.toml"] = {"host": 1}
    (redacted / "receipt.json").write_text(json.dumps(receipt, indent=2) + "\n")
    write_manifest(redacted)
    failed = _failed(_verify(run_cli, redacted))
    assert set(failed) == {"receipts"}, failed
    assert any("ghost.toml" in line and "does not hold" in line for line in failed["receipts"])


@pytest.mark.slow
def test_site_copy_carries_the_decision_manifest(run_cli, site_master: Path, keypair) -> None:
    evidence = site_master / "public" / "decisions" / "2026-11-01-reference-reconstruction" / "evidence"
    assert (evidence / "manifest.json").is_file() and (evidence / "receipt.json").is_file()
    result = run_cli("verify", evidence, "--allow-unpinned")
    assert result.code == 0, result.out


@pytest.mark.parametrize("case", ["edited-title", "file-added-at-top", "decision-manifest-removed"])
def test_build_refuses_a_decision_folder_its_manifest_does_not_match(run_cli, redacted: Path, tmp_path: Path, case: str) -> None:
    """Building it would publish a site that fails verify: bad input, one line, nothing built."""
    CASES[case][0](redacted)
    result = run_cli("build", redacted, "--out", tmp_path / "site")
    assert result.code == 2 and result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    assert str(redacted) in result.err and "manifest.json" in result.err
    assert not (tmp_path / "site").exists()
