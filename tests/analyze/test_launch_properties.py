"""Properties of statistics v4's pure functions: the t distribution, the launch-level interval, Holm."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.analyze.family import holm
from evidence_kit.analyze.launch import BlockEstimate, LaunchVariance, block_estimate, compare, control_weights, launch_variance
from evidence_kit.analyze.stats import median
from evidence_kit.analyze.student import t_quantile, t_two_sided_tail

dfs = st.integers(min_value=1, max_value=200)
levels = st.floats(min_value=0.5, max_value=0.999)


@given(levels, dfs)
def test_the_quantile_inverts_the_tail(level: float, df: int) -> None:
    q = t_quantile(level, df)
    assert abs(t_two_sided_tail(q, df) - (1 - level)) < 1e-9


@given(levels, dfs)
def test_fewer_degrees_of_freedom_never_narrow_the_quantile(level: float, df: int) -> None:
    assert t_quantile(level, df) >= t_quantile(level, df + 1)


def test_known_quantiles() -> None:
    assert t_quantile(0.95, 1) == 12.7062047362 and t_quantile(0.95, 2) == 4.30265272975 and t_quantile(0.95, 10) == 2.22813885199


values = st.floats(min_value=0.5, max_value=2.0)
runs = st.lists(st.lists(values, min_size=1, max_size=5), min_size=2, max_size=6)


@settings(max_examples=200, deadline=None)
@given(runs, runs, runs, st.floats(min_value=0.8, max_value=0.95))
def test_the_interval_holds_the_ratio_and_reads_the_same_as_its_p_value(before, candidate, restored, threshold) -> None:
    b, c, r = (block_estimate(x, median, seq) for x, seq in ((before, 1.0), (candidate, 2.0), (restored, 3.0)))
    assert b is not None and c is not None and r is not None
    launch = launch_variance([b, r], [c])
    result = compare(c, 1, [b], [1.0], launch, threshold_ratio=threshold)
    if result.low is None or result.high is None:
        return
    assert result.ratio is not None and result.low <= result.ratio <= result.high
    assert result.p_value is not None
    # The 95 % interval lies wholly under the threshold exactly when the one-sided p-value is at most 2.5 %
    # (away from the boundary, where the quantile's 12 digits decide).
    if abs(result.high - threshold) > 1e-6:
        assert (result.high < threshold) == (result.p_value <= 0.025)


@given(st.lists(st.floats(min_value=0.9, max_value=1.1), min_size=2, max_size=6), st.floats(min_value=0.0, max_value=10.0))
def test_the_corrected_control_weights_sum_to_one_and_fit_a_line_exactly(ys: list[float], at: float) -> None:
    seqs = [float(i * 2 + 1) for i in range(len(ys))]
    weights = control_weights(seqs, at)
    assert math.isclose(math.fsum(weights), 1.0, abs_tol=1e-9)
    if len(ys) >= 3:  # a straight line is reproduced wherever it is read
        line = [0.5 + 0.1 * s for s in seqs]
        assert math.isclose(math.fsum(w * y for w, y in zip(weights, line)), 0.5 + 0.1 * at, abs_tol=1e-9)


def test_agreeing_blocks_carry_no_block_variance_and_disagreeing_ones_do() -> None:
    same = [BlockEstimate(seq=s, value=1.0, rel_var=0.001, df=2) for s in (1.0, 3.0)]
    assert launch_variance(same, [BlockEstimate(seq=2.0, value=0.8, rel_var=0.001, df=2)]) == LaunchVariance(0.0, 1)
    apart = [BlockEstimate(seq=1.0, value=1.0, rel_var=0.001, df=2), BlockEstimate(seq=3.0, value=1.1, rel_var=0.001, df=2)]
    assert launch_variance(apart, []).variance > 0


p_values = st.lists(st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)), min_size=1, max_size=10)


@given(p_values, st.floats(min_value=0.001, max_value=0.2))
def test_holm_rejects_exactly_where_the_p_value_is_at_most_its_level(ps, alpha) -> None:
    out = holm(ps, alpha)
    for p, (level, rejected) in zip(ps, out):
        assert rejected == (p is not None and p <= level)
        assert alpha / len(ps) <= level <= alpha


@given(p_values, st.floats(min_value=0.001, max_value=0.2))
def test_holm_rejects_at_least_bonferroni_and_at_most_the_unadjusted_test(ps, alpha) -> None:
    rejected = [r for _, r in holm(ps, alpha)]
    for p, r in zip(ps, rejected):
        if p is not None and p <= alpha / len(ps):
            assert r
        if r:
            assert p is not None and p <= alpha


@given(st.floats(min_value=0.0, max_value=1.0), st.floats(min_value=0.001, max_value=0.2))
def test_a_family_of_one_is_the_single_test(p: float, alpha: float) -> None:
    assert holm([p], alpha) == [(alpha, p <= alpha)]


ends = st.tuples(st.floats(min_value=0.5, max_value=1.5), st.floats(min_value=0.0, max_value=0.3))


@settings(max_examples=300, deadline=None)
@given(st.lists(ends, min_size=1, max_size=2), st.sampled_from(["point", "significant", "bound"]), st.floats(0.0, 1.0), st.floats(0.001, 0.03))
def test_a_v4_verdict_wins_only_past_the_threshold_and_the_family_never_adds_a_win(cases, confidence, p, level) -> None:
    from evidence_kit.analyze.report import Interval
    from evidence_kit.analyze.verdicts import family_adjusted, verdict_v4
    from evidence_kit.model.trial import DecisionRule

    rule = DecisionRule.model_validate({"min_improvement": 0.10, "statistics": 4, "confidence": confidence})
    intervals = [
        Interval(control="before", statistic="median", method="launch-t", ratio=r, low=r - w, high=r + w, resolvable=True, p_value=p)
        for r, w in cases
    ]
    improvements = [(1 - r) * 100 for r, _ in cases]
    verdict = verdict_v4(improvements, intervals, rule, None, clears=(True, True), drift_flagged=False, guardrails_held=True)
    point = all(i >= 10 - 1e-9 for i in improvements)
    assert verdict.point_win == point
    if verdict.verdict == "win":
        assert point and (
            confidence == "point" or all(i.high is not None and i.high <= 0.9 + 1e-12 for i in intervals) or confidence == "significant"
        )
    if verdict.verdict == "likely":
        assert point and not verdict.win
    adjusted = family_adjusted(verdict, level, p <= level)
    assert not adjusted.win or verdict.win  # Holm only removes wins
    assert adjusted.verdict in (verdict.verdict, "likely")
