"""A redaction whose known-value scan found a private value is kept for the operator to look at, marked: no
``manifest.json`` anywhere and a ``NOT-PUBLISHABLE.txt`` (docs/redaction.md: nothing downstream accepts it).
``build`` read a folder without manifests as raw evidence and published it; a folder the redactor wrote
(it holds ``receipt.json``) without its manifest is now refused, marker or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.redact import redact_bundle
from evidence_kit.redact.scanner import Finding


@pytest.fixture
def marked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from evidence_kit.redact import run as redact_run

    monkeypatch.setattr(redact_run, "scan_files", lambda *args, **options: [Finding("decision.toml", 7, "host", "known")])
    result = redact_bundle(write_reference_decision(tmp_path / "raw"), tmp_path / "marked", key=b"fabricated-test-key-0123456789abcdef")
    assert not result.publishable and (result.out / "NOT-PUBLISHABLE.txt").is_file()
    return result.out


@pytest.mark.parametrize("marker", ["kept", "deleted"])
def test_build_refuses_a_redaction_marked_not_publishable(run_cli, marked: Path, tmp_path: Path, marker: str) -> None:
    if marker == "deleted":
        (marked / "NOT-PUBLISHABLE.txt").unlink()
    result = run_cli("build", marked, "--out", tmp_path / "site")
    assert result.code == 2, result.out + result.err
    (line,) = result.err.strip().splitlines()
    assert line.startswith(f"evidence-kit: {marked / 'manifest.json'}: missing, but the folder holds receipt.json"), line
    assert not (tmp_path / "site").exists() or not any((tmp_path / "site").iterdir())
