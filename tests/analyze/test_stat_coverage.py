"""The coverage benchmark (bench/stat_coverage.py), reduced to a test: clustered data undercover the
request-level interval, and the rules do what they promise at the extremes."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import REPO


def _coverage_bench():
    spec = importlib.util.spec_from_file_location("stat_coverage", REPO / "bench" / "stat_coverage.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["stat_coverage"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_request_level_intervals_undercover_clustered_data() -> None:
    """The coverage benchmark, reduced: on run-heavy data the request-level interval misses the true
    ratio far more often than the run-level one (docs/benchmarks.md has the full table)."""
    bench = _coverage_bench()
    [tally] = bench.run(["run-heavy"], [(6, 4)], (0.0, 0.20), trials=40).values()
    run, request = (tally.covered[m] / tally.intervals for m in ("run-t", "request"))
    assert tally.intervals == 160
    assert request < 0.85 and run > 0.88, (run, request)
    assert tally.rate("significant", 0.0) == 0 and tally.rate("point", 0.20) > 0.9


def test_the_coverage_only_mode_draws_the_intervals_group_results_draws() -> None:
    """``--coverage-only`` skips the verdicts but not the intervals: it counts exactly what the full path does."""
    bench = _coverage_bench()
    [full] = bench.run(["run-only"], [(3, 4)], (0.0,), trials=3).values()
    [lean] = bench.run(["run-only"], [(3, 4)], (0.0,), trials=3, coverage_only=True).values()
    assert full.covered == lean.covered and full.intervals == lean.intervals == 6
