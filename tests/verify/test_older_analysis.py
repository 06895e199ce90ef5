"""A site whose analysis.json another version of the analysis wrote fails verify in one line that says so."""

from __future__ import annotations

import pytest

from .test_carried_verdicts import _resign_with
from .test_site_tamper import DECISION, _failed, _verify

pytestmark = pytest.mark.slow  # runs the whole verify of a real site


def test_an_older_analysis_is_one_named_failure(run_cli, site, keypair) -> None:
    def to_v1(doc: dict) -> None:
        doc["schema"] = "evidence-kit/analysis/v1"
        doc["tool_version"] = "0.1.0"
        for trial in doc["trials"]:
            for group in trial["groups"]:
                del group["verdict"]["verdict"]  # and v1 had none of v2's fields

    _resign_with(site, keypair[0], to_v1)
    result = _verify(run_cli, site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert failed["figures"] == [
        f"{site / DECISION / 'analysis.json'}: schema: published evidence-kit/analysis/v1 by evidence-kit 0.1.0, "
        "recomputed evidence-kit/analysis/v2 (this evidence-kit recomputes only that version; verify the site with "
        "the version that built it)"
    ], result.out
