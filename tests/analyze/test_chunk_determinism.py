"""The chunked draws give the same bytes whatever the chunk size, for every method and statistic, in a
fresh interpreter under another hash seed too."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from evidence_kit.analyze import stats

CAND = [[1.0, 1.2, 1.1, 1.3, 1.25], [2.0, 2.1], [1.5, 1.4, 1.6], [1.7]]
CTRL = [[1.4, 1.5], [1.45, 1.6, 1.3], [1.5]]
CODE = f"from evidence_kit.analyze import stats;print(stats.bootstrap_ratios({CAND}, {CTRL}, 7, resamples=333).tobytes().hex())"


@pytest.mark.parametrize("method", [m for m in stats.METHODS if m != "run-t"])  # run-t: below
@pytest.mark.parametrize("name", stats.STATISTICS)
def test_chunk_size_changes_no_byte(monkeypatch: pytest.MonkeyPatch, method: str, name: str) -> None:
    whole = stats.bootstrap_ratios(CAND, CTRL, 7, method=method, statistic_name=name, resamples=333)
    assert whole is not None
    for chunk in (1, 17, 29 * 7, 10_000):
        monkeypatch.setattr(stats, "CHUNK_VALUES", chunk)
        got = stats.bootstrap_ratios(CAND, CTRL, 7, method=method, statistic_name=name, resamples=333)
        assert got is not None and got.tobytes() == whole.tobytes(), chunk


@pytest.mark.parametrize("name", stats.STATISTICS)
def test_chunk_size_changes_no_byte_of_the_studentised_interval(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The default (run-t) draws its pivot's resamples in chunks too: the ends are the same floats whatever
    the chunk size."""
    from evidence_kit.analyze import studentised

    whole = studentised.studentised_interval(CAND, CTRL, 7, statistic_name=name, resamples=333)
    assert whole is not None
    for chunk in (1, 17, 29 * 7, 10_000):
        monkeypatch.setattr(studentised, "CHUNK_VALUES", chunk)
        assert studentised.studentised_interval(CAND, CTRL, 7, statistic_name=name, resamples=333) == whole, chunk


def test_hash_seed_changes_no_byte() -> None:
    here = stats.bootstrap_ratios(CAND, CTRL, 7, resamples=333)
    assert here is not None
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == here.tobytes().hex()
