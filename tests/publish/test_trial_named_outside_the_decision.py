"""A decision folder holds its trial bundles as subfolders (docs/contract.md): a trial ``decision.toml`` names by an
absolute path or through ``..`` is outside it. ``build`` crashed on one with a traceback (exit 1) while working out
which folder of the copy each file belongs to; it is bad input, one line naming decision.toml, exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidence_kit.attest.manifest import write_manifest


@pytest.mark.parametrize("how", ["absolute", "dotdot"])
def test_build_refuses_a_trial_named_outside_the_decision_folder(run_cli, reference_bundle: Path, tmp_path: Path, how: str) -> None:
    decision = Path(shutil.copytree(reference_bundle, tmp_path / "decisions" / "2026-11-01"))
    shutil.copytree(reference_bundle / "dflash", tmp_path / "decisions" / "dflash")  # a real bundle, outside
    name = str(tmp_path / "decisions" / "dflash") if how == "absolute" else "../dflash"
    toml = decision / "decision.toml"
    toml.write_text(toml.read_text().replace('"dflash"', f'"{name}"'))
    write_manifest(decision)
    result = run_cli("build", decision, "--out", tmp_path / "site")
    assert result.code == 2, result.err
    (line,) = result.err.strip().splitlines()
    assert line.startswith(f"evidence-kit: {toml}: trial {name!r} is not a subfolder of the decision folder"), line
