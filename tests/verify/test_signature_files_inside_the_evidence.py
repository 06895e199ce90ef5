"""``manifest.dsse.json`` and ``signing.pub`` are evidence only at the top of the folder verified, where the signature
check reads them. Below it nothing would read them, so a note under either name in a trial bundle fails, and a
decision folder holding one is refused by build (else it was built into the site's evidence copy, linked from the
artifacts page, served, the envelope as JSON a browser shows, and compared with nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree
from evidence_kit.attest.manifest import write_manifest

NOTE = '{"note": "Adopted: the candidate is 40% faster, reviewed by the SRE lead"}\n'


@pytest.mark.parametrize("name", ["manifest.dsse.json", "signing.pub"])
def test_a_note_under_a_signature_s_name_in_a_trial_bundle_fails(run_cli, redacted: Path, keypair, name: str) -> None:
    trial = next(p.parent for p in sorted(redacted.rglob("trial.json")))
    (trial / name).write_text(NOTE, "utf-8")
    write_manifest(trial)
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 1 and f"{trial / name}: " in result.out, result.out


@pytest.mark.parametrize("name", ["manifest.dsse.json", "signing.pub"])
def test_build_refuses_a_signature_s_name_in_a_decision_folder(run_cli, redacted: Path, tmp_path: Path, name: str) -> None:
    trial = next(p.parent for p in sorted(redacted.rglob("trial.json")))
    (trial / name).write_text(NOTE, "utf-8")
    for folder in (trial, redacted):
        write_manifest(folder)
    result = run_cli("build", redacted, "--out", tmp_path / "site")
    assert result.code == 2 and result.err.strip().startswith(f"evidence-kit: {trial / name}: not a file of the evidence contract"), result.err
