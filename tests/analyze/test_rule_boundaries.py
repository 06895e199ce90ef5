"""The rule's boundaries are compared the same way on both sides (a win and a regression)."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import flat, write_bundle


def test_exactly_half_the_threshold_slower_is_a_regression(tmp_path: Path) -> None:
    # 2.07 / 2.00 is exactly 3.5% slower, half of a 7% threshold; binary rounding gives 3.49999999999999%.
    # Exactly 7% faster counts as clearing (groups.reaches' tolerance); exactly half of it slower did not.
    bundle = write_bundle(tmp_path, "t", "ABA", [flat(2.0), flat(2.07), flat(2.0)], rule={"min_improvement": 0.07})
    group = analyze(load_trial(bundle)).trials[0].groups[0]
    assert group.verdict.verdict == "regression", group.verdict
