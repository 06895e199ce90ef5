"""The run-level interval must be a function of the measurements, not of the order their lines were written in.

The bootstrap's draw k picks "request k of the drawn run", so permuting the request lines of one run (the same
requests, the same run, the same values) gives another interval. Near a bound that flips the verdict: here the
journals as written give ``inconclusive`` under ``confidence = "significant"``, and the candidate's requests
written in another order within each run give ``win`` (and a promotion). A publisher can shop for a win by
reordering lines; two honest writers that order a run's requests differently publish different verdicts.
Fixed: each run's values are resampled in ascending order, the runs in ascending order of those lists."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import G, write_bundle

BEFORE = [[2.108, 2.13, 2.0, 1.964], [1.83, 1.815, 1.961, 1.826], [1.775, 2.033, 2.0, 1.922]]
CANDIDATE = [[1.565, 1.71, 1.589, 1.638], [1.759, 1.86, 1.87, 1.603], [1.958, 1.497, 1.69, 1.972]]
RESTORED = [[2.464, 2.025, 1.934, 1.928], [1.768, 1.972, 1.921, 1.855], [2.236, 1.85, 2.332, 2.163]]
REORDERED = [[1.565, 1.589, 1.638, 1.71], [1.603, 1.759, 1.86, 1.87], [1.69, 1.497, 1.958, 1.972]]
RULE = {"min_improvement": 0.10, "confidence": "significant"}


def _verdict(tmp_path: Path, name: str, candidate: list[list[float]]) -> tuple[str, str]:
    bundle = write_bundle(tmp_path, name, "ABA", [{G: BEFORE}, {G: candidate}, {G: RESTORED}], rule=RULE)
    trial = analyze(load_trial(bundle)).trials[0]
    return trial.groups[0].verdict.verdict, trial.outcome


def test_the_reordered_runs_hold_the_same_requests() -> None:
    assert [sorted(r) for r in REORDERED] == [sorted(r) for r in CANDIDATE]


def test_reordering_a_run_s_request_lines_does_not_change_the_verdict(tmp_path: Path) -> None:
    # trial ids differ in the seed, so both bundles use the same id in their own folders
    assert _verdict(tmp_path / "a", "perm", CANDIDATE) == _verdict(tmp_path / "b", "perm", REORDERED)
