"""The layout admits ``manifest.dsse.json`` and ``signing.pub`` at the top of any evidence folder (a signed folder's
envelope and key). At the verified root the signature check reads them; below it nothing does, so a note under
either name is evidence by its name alone: built into the site's evidence copy, linked from the artifacts page,
served (the envelope as JSON a browser shows) and compared with nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree
from evidence_kit.attest.manifest import write_manifest

NOTE = '{"note": "Adopted: the candidate is 40% faster, reviewed by the SRE lead"}\n'


@pytest.mark.xfail(
    strict=True,
    reason="open: below the verified root nothing reads a manifest.dsse.json or signing.pub the layout admits by name; "
    "what a nested signature must be (an envelope over its folder, by the key beside it?) and whether build copies one "
    "is not decided",
)
@pytest.mark.parametrize("name", ["manifest.dsse.json", "signing.pub"])
def test_a_note_under_a_signature_s_name_in_a_trial_bundle_fails(run_cli, redacted: Path, keypair, name: str) -> None:
    trial = next(p.parent for p in sorted(redacted.rglob("trial.json")))
    (trial / name).write_text(NOTE, "utf-8")
    write_manifest(trial)
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 1 and f"{trial / name}: " in result.out, result.out
