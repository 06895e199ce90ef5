"""Statistics v4: a control block's own runs bound the variance of its statistic from below.

Two A/B/A controls whose pooled medians agree give the launch variance (their disagreement) an estimate of 0;
the interval then treated the control as known exactly, however far apart its runs were, and a candidate
whose runs happened to agree won on a control measured to +-20 % (adv24)."""

from __future__ import annotations

from evidence_kit.analyze.blocks import launch_intervals
from evidence_kit.analyze.simulate import arms_of
from evidence_kit.analyze.stats import median
from evidence_kit.analyze.studentised import studentised_interval
from evidence_kit.analyze.verdicts import verdict_v4
from evidence_kit.model.trial import DecisionRule

JITTER = (0.99, 1.0, 1.0, 1.01)


def _runs(*medians: float) -> list[list[float]]:
    return [[m * j for j in JITTER] for m in medians]


def test_controls_that_agree_in_their_medians_but_not_their_runs_do_not_make_a_tight_interval() -> None:
    control = _runs(1.6, 2.0, 2.4)  # runs 20 % apart; the two blocks' pooled medians both exactly 2.0
    candidate = _runs(1.75, 1.76, 1.77)  # 12 % faster, its runs within 1 % of each other
    intervals = launch_intervals(arms_of("ABA"), [control, candidate, control[::-1]], median, "median", 0.9)
    rule = DecisionRule.model_validate({"min_improvement": 0.1, "statistics": 4})
    improvements = [None if i.ratio is None else (1 - i.ratio) * 100 for i in intervals]
    verdict = verdict_v4(improvements, intervals, rule, 0.0, clears=(True, True), drift_flagged=False, guardrails_held=True)
    assert not verdict.win and verdict.verdict == "likely"
    # The run-level interval of the same arms, which reads the control's runs, does not clear 0.90 either.
    run_level = studentised_interval(candidate, control, seed=1)
    assert run_level is None or run_level[1] > 0.9
    for i in intervals:
        assert i.low is None or i.high is None or i.high > 0.9
