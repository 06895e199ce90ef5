"""A decision folder holds decision.toml and the trial bundles it names (docs/contract.md, Layout). A bundle it does
not name is no evidence of the decision: ``build`` refuses it, and ``verify`` fails a signed decision folder that
holds one at any depth (two folders down it was verified as a trial of its own, beside the decision)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree

from .test_site_tamper import _failed


@pytest.mark.parametrize("where", ["extra", "extra/dflash"])
def test_a_signed_decision_folder_holding_a_trial_bundle_it_does_not_name_fails(run_cli, redacted: Path, keypair, where: str) -> None:
    shutil.copytree(redacted / "dflash", redacted / where)
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 1, result.out
    shown = f"{redacted}/{where}/trial.json: not a file of the evidence contract: it is in no trial bundle decision.toml names"
    assert any(line.startswith(shown) for line in _failed(result).get("contract", [])), result.out


def test_a_trial_named_two_folders_down_still_verifies(run_cli, redacted: Path, keypair) -> None:
    (redacted / "group").mkdir()
    shutil.move(str(redacted / "dflash"), redacted / "group" / "dflash")
    toml = redacted / "decision.toml"
    toml.write_text(toml.read_text().replace('"dflash"', '"group/dflash"'))
    from evidence_kit.attest.manifest import write_manifest

    write_manifest(redacted)
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 0, result.out
