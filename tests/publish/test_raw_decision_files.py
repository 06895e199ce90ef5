"""A raw decision folder is published whole or refused: a file beside its trials is never left behind unsaid."""

from __future__ import annotations

import os
from pathlib import Path

from ..conftest import write_reference_decision


def test_a_note_beside_a_raw_decision_s_trials_is_refused_naming_it(run_cli, tmp_path: Path) -> None:
    raw = write_reference_decision(tmp_path / "raw")
    (raw / "NOTES.txt").write_text("Adopted: 40% faster\n")
    result = run_cli("build", raw, "--out", tmp_path / "site")
    assert result.code == 2, result.out + result.err
    assert result.err.strip() == (
        f"evidence-kit: {raw / 'NOTES.txt'}: not a file of the evidence contract (a decision folder, beside its trial bundles, "
        "holds decision.toml, *.<reader>.json, manifest.json, receipt.json; docs/contract.md, Layout)"
    )
    assert not (tmp_path / "site").exists() or not any((tmp_path / "site").iterdir())


def test_a_symlinked_folder_in_a_raw_decision_is_refused_not_followed(run_cli, tmp_path: Path) -> None:
    raw = write_reference_decision(tmp_path / "raw")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "host.log").write_text("a log from elsewhere\n")
    trial = next(p.parent for p in sorted(raw.rglob("trial.json")))
    os.symlink(outside, trial / "logs")
    result = run_cli("build", raw, "--out", tmp_path / "site")
    assert result.code == 2 and result.err.strip().startswith(f"evidence-kit: {trial / 'logs'}: symbolic link"), result.err
