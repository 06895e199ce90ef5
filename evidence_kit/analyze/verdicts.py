"""One verdict per group, from a fixed list, by the rule declared before the trial ran.

The verdicts, tried in this order:

- ``win``: the candidate clears the threshold against both controls at the rule's
  declared confidence — ``point`` (the point estimates clear it: the original rule),
  ``significant`` (and each run-level interval excludes no change) or ``bound``
  (and the conservative end of each interval clears it).
- ``regression``: the candidate is slower than both controls by at least
  :data:`REGRESSION_FRACTION_OF_THRESHOLD` of the threshold, at the same confidence
  (``significant``: each interval excludes no change; ``bound``: the interval's
  faster end is that much slower).
- ``inconclusive`` (controls disagree): the two controls differ by at least the threshold.
- ``no-win``: against at least one control the interval excludes an improvement of
  the threshold's size: the data say it does not win.
- ``inconclusive`` (unresolved): the intervals cannot resolve the threshold either way.

For ``goodput`` (higher is better) every comparison reads the other way: the candidate must be at
least the threshold *higher*, and a regression is a lower goodput.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.phase import CONTROLS
from ..model.trial import DecisionRule
from .report import Comparison, Interval, Verdict

__all__ = ["verdict_for", "verdict_v4", "family_adjusted", "regression_floor_pct", "REGRESSION_FRACTION_OF_THRESHOLD"]

# A candidate slower than *both* controls by at least half the rule's threshold is
# called a regression, even though the rule only asks about improvements.
REGRESSION_FRACTION_OF_THRESHOLD = 0.5
_EPS = 1e-12  # far below any displayed digit: a ratio exactly on a bound is on it
_PCT_EPS = 1e-9  # the same in percent (groups.reaches)


def regression_floor_pct(threshold_pct: float) -> float:
    """How much slower than both controls (in percent) makes a regression."""
    return threshold_pct * REGRESSION_FRACTION_OF_THRESHOLD


def _ends(intervals: Sequence[Interval]) -> list[tuple[float, float]] | None:
    """Every interval's (low, high), or None when one could not be drawn."""
    ends = [(i.low, i.high) for i in intervals]
    if any(low is None or high is None for low, high in ends):
        return None
    return ends  # type: ignore[return-value]


def verdict_for(
    comparisons: Sequence[Comparison],
    intervals: Sequence[Interval],
    rule: DecisionRule,
    drift_pct: float | None,
    *,
    drift_flagged: bool,
    guardrails_held: bool,
) -> Verdict:
    """The verdict of one group from its decision-metric comparisons and run-level median intervals."""
    by_control = {c.control: c for c in comparisons}
    clears_before = by_control["before"].clears is True
    clears_restored = by_control["restored"].clears is True
    point_win = clears_before and clears_restored
    ends = _oriented_ends(intervals, rule)
    t = rule.min_improvement
    win = point_win and _resolved_win(ends, rule)
    # The regression rule reads improvements: a latency's change is slower-positive, a goodput's higher-positive.
    changes = [by_control[c].change_pct for c in CONTROLS]
    improvements = [None if c is None else c if rule.higher_is_better else -c for c in changes]
    regression = _resolved_regression(improvements, ends, rule)
    if win:
        verdict, reason = "win", "clears-both"
    elif regression:
        verdict, reason = "regression", "slower-than-both"
    elif drift_flagged:
        verdict, reason = "inconclusive", "controls-disagree"
    elif ends is not None and any(low > 1 - t for low, _ in ends):
        verdict, reason = "no-win", "below-threshold"
    else:
        verdict, reason = "inconclusive", "unresolved"
    return Verdict(
        verdict=verdict,  # type: ignore[arg-type]
        reason=reason,  # type: ignore[arg-type]
        win=win,
        point_win=point_win,
        within_noise=point_win and (ends is None or any(high >= 1 for _, high in ends)),
        clears_before=clears_before,
        clears_restored=clears_restored,
        split=clears_before != clears_restored,
        control_drift_pct=drift_pct,
        drift_flagged=drift_flagged,
        guardrails_held=guardrails_held,
    )


def _oriented_ends(intervals: Sequence[Interval], rule: DecisionRule) -> list[tuple[float, float]] | None:
    """The judged intervals' ends, latency-oriented. Goodput improves upwards: each ratio is mirrored about 1
    (r -> 2 - r), so the rules below, written for a latency, read "at least t higher" where they say "at least
    t lower", and the same for regressions."""
    ends = _ends(intervals)
    if ends is not None and rule.higher_is_better:
        ends = [(2 - high, 2 - low) for low, high in ends]
    return ends


def _resolved_win(ends: Sequence[tuple[float, float]] | None, rule: DecisionRule) -> bool:
    """The intervals (latency-oriented) clear the threshold at the rule's confidence (point: no interval needed)."""
    t = rule.min_improvement
    if rule.confidence == "point":
        return True
    if ends is None:
        return False
    if rule.confidence == "significant":
        return all(high < 1 for _, high in ends)
    return all(high <= 1 - t + _EPS for _, high in ends)


def verdict_v4(
    improvements: Sequence[float | None],
    intervals: Sequence[Interval],
    rule: DecisionRule,
    drift_pct: float | None,
    *,
    clears: tuple[bool, bool],
    drift_flagged: bool,
    guardrails_held: bool,
) -> Verdict:
    """Statistics v4's verdict of one group, before Holm's step-down (:func:`.family.holm` may turn a win into
    ``likely``). ``improvements`` (percent) and ``intervals`` are against the controls the group is judged by:
    both controls in A/B/A, the drift-corrected control in longer designs; ``clears`` is against the before
    and the restored, as shown. The order: win; regression; inconclusive, the controls disagree (A/B/A);
    likely, not resolved (a point estimate past the threshold whose interval is not: never a win); no-win;
    inconclusive, unresolved."""
    ends = _oriented_ends(intervals, rule)
    t = rule.min_improvement
    point_win = all(i is not None and i >= t * 100 - _PCT_EPS for i in improvements)
    win = point_win and _resolved_win(ends, rule)
    regression = _resolved_regression(improvements, ends, rule)
    verdict, reason = _first_v4(win, regression, drift_flagged, point_win, ends is not None and any(low > 1 - t for low, _ in ends))
    return Verdict(
        verdict=verdict,  # type: ignore[arg-type]
        reason=reason,  # type: ignore[arg-type]
        win=win,
        point_win=point_win,
        within_noise=point_win and (ends is None or any(high >= 1 for _, high in ends)),
        clears_before=clears[0],
        clears_restored=clears[1],
        split=clears[0] != clears[1],
        control_drift_pct=drift_pct,
        drift_flagged=drift_flagged,
        guardrails_held=guardrails_held,
        p_value=_group_p_value(intervals),
    )


def _resolved_regression(improvements: Sequence[float | None], ends: Sequence[tuple[float, float]] | None, rule: DecisionRule) -> bool:
    """Slower than every judged control by the regression floor, at the rule's confidence. In percent with the
    tolerance ``groups.reaches`` gives the threshold: a row exactly half the threshold slower (3.5% of 7%,
    3.4999999999999916 in binary) is a regression, as one exactly at it faster is a win."""
    floor = regression_floor_pct(rule.min_improvement * 100)
    if not all(i is not None and -i >= floor - _PCT_EPS for i in improvements):
        return False
    if rule.confidence == "point":
        return True
    if ends is None:
        return False
    if rule.confidence == "significant":
        return all(low > 1 for low, _ in ends)
    return all(low >= 1 + floor / 100 - _EPS for low, _ in ends)


def _group_p_value(intervals: Sequence[Interval]) -> float | None:
    """The larger p-value over the judged controls (a win must clear each: the intersection-union test)."""
    p_values = [i.p_value for i in intervals]
    return None if any(p is None for p in p_values) else max(p for p in p_values if p is not None)


def _first_v4(win: bool, regression: bool, drift_flagged: bool, point_win: bool, excluded: bool) -> tuple[str, str]:
    if win:
        return "win", "clears-both"
    if regression:
        return "regression", "slower-than-both"
    if drift_flagged:
        return "inconclusive", "controls-disagree"
    if point_win:
        return "likely", "not-resolved"
    if excluded:
        return "no-win", "below-threshold"
    return "inconclusive", "unresolved"


def family_adjusted(verdict: Verdict, tested_at: float, rejected: bool) -> Verdict:
    """A v4 ``bound`` verdict after Holm's step-down: a win the family does not admit is likely, not resolved."""
    out = verdict.model_copy(update={"tested_at": tested_at})
    if verdict.win and not rejected:
        out = out.model_copy(update={"verdict": "likely", "reason": "not-admitted", "win": False})
    return out
