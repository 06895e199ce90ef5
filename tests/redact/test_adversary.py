"""The adversary's round on publication by construction (issue 23, point 7): each finding, as a test.

Each test plants a value where the attack put it, or takes evidence the attack showed the redactor
damaging or refusing, and asserts what holds now.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from evidence_kit.redact import redact_bundle

from .conftest import KEY

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "evidence"


def test_a_bundle_of_the_previous_version_redacts_again_publishable(tmp_path):
    # Its headers' private parts hold the old layout's `version` object, whose fields are the earlier
    # redaction's pseudonyms: they are earlier pseudonyms, not private values to hunt (they once made
    # every header a "model" finding, the bundle not publishable).
    for folder in sorted(p for p in COMMITTED.iterdir() if (p / "decision.toml").is_file()):
        raw = tmp_path / folder.name
        shutil.copytree(folder, raw)
        result = redact_bundle(raw, tmp_path / "out" / folder.name, key=KEY)
        assert result.publishable, [str(f) for f in result.findings]
