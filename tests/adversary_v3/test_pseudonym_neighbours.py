"""The output scan's allowance for a pseudonym's borrowed characters stays narrow: an address that is an
address without the pseudonym, or any other class of hit beside one, is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.examples.reference import REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.redact import redact_bundle


def _redact(tmp_path: Path, line: str):
    bundle = write_trial_bundle(tmp_path / "raw", "t", REFERENCE_TRIALS["cache-layout"])
    (bundle / "run.log").write_text(line + "\n")
    return redact_bundle(bundle, tmp_path / "out")


@pytest.mark.parametrize(
    "line",
    [
        "gpu-07.cluster.acme-corp.internal::1234:5678:9abc:def0",  # ::1234:5678:9abc:def0 is an address on its own
    ],
)
def test_an_address_beside_a_pseudonym_is_still_refused(tmp_path: Path, line: str) -> None:
    result = _redact(tmp_path, line)
    published = (tmp_path / "out" / "run.log").read_text() if result.publishable else ""
    assert not result.publishable or "1234:5678:9abc:def0" not in published, published


def test_the_unspecified_address_beside_a_pseudonym_is_publishable(tmp_path: Path) -> None:
    assert _redact(tmp_path, "gpu-07.cluster.acme-corp.internal::000").publishable
