"""The studentised (run-t) interval estimates the variance of an arm's mean from its runs alone. When every
run of an arm has the same mean while its values vary (goodput's 0/1 values: 18 of 20 good in each run),
that estimate is 0 and the Fieller interval collapses to the point ratio: a "significant" win claimed from
one more good request per run, where the percentile run bootstrap spans no change. Not estimable instead."""

from __future__ import annotations

from evidence_kit.analyze.report import Comparison, Interval
from evidence_kit.analyze.stats import bootstrap_ratio_interval
from evidence_kit.analyze.verdicts import verdict_for
from evidence_kit.model.trial import DecisionRule

CONTROL = [[1.0] * 18 + [0.0] * 2] * 3  # 90 % good in every run, exactly
CANDIDATE = [[1.0] * 19 + [0.0]] * 3  # 95 % good in every run, exactly


def test_tied_run_means_give_no_point_interval() -> None:
    interval = bootstrap_ratio_interval(CANDIDATE, CONTROL, 7, method="run-t", statistic_name="mean")
    assert interval is None or interval[1] - interval[0] > 0.05, interval
    # The run bootstrap, on the same values, does not exclude no change.
    low, high = bootstrap_ratio_interval(CANDIDATE, CONTROL, 7, method="run", statistic_name="mean")  # type: ignore[misc]
    assert low < 1 < high


def test_tied_runs_in_one_arm_alone_are_not_estimable() -> None:
    """The candidate's runs vary; the control's are tied: its variance is not known to be 0."""
    candidate = [[1.0] * 19 + [0.0], [1.0] * 20, [1.0] * 18 + [0.0] * 2]
    assert bootstrap_ratio_interval(candidate, CONTROL, 7, method="run-t", statistic_name="mean") is None


def test_constant_arms_keep_their_exact_ratio() -> None:
    """Values with no spread at all (every request good) are no estimate failure: the ratio is exact."""
    assert bootstrap_ratio_interval([[1.0] * 20] * 3, [[1.0] * 20] * 3, 7, method="run-t", statistic_name="mean") == (1.0, 1.0)


def test_goodput_rule_does_not_call_tied_runs_a_significant_win() -> None:
    ends = bootstrap_ratio_interval(CANDIDATE, CONTROL, 7, method="run-t", statistic_name="mean")
    low, high = ends if ends else (None, None)
    rule = DecisionRule(metric="goodput", statistic="share", min_improvement=0.05, confidence="significant")
    comparisons = [Comparison(control=c, change_pct=5.56, improvement_pct=5.56, clears=True) for c in ("before", "restored")]
    intervals = [
        Interval(control=c, statistic="share", method="run-t", ratio=19 / 18, low=low, high=high, resolvable=low is not None)
        for c in ("before", "restored")
    ]
    v = verdict_for(comparisons, intervals, rule, 0.0, drift_flagged=False, guardrails_held=True)
    assert v.verdict != "win"
