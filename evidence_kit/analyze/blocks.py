"""Statistics v4's intervals of one group: the blocks of its design, compared launch by launch.

A/B/A is judged against both controls (the before and the restored), each with the launch variance the two
controls' disagreement holds; a longer design (A/B/A/B/A, A/B/B/A, ...) is judged against the drift-corrected
control, the control blocks' least-squares line where the candidate ran, whose ends the before and restored
intervals are shown beside. See ``launch.py`` for the interval. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..model.trial import ArmRef, DecisionRule
from .launch import BlockEstimate, Comparison4, LaunchVariance, block_estimate, compare, control_weights, launch_variance
from .report import Interval
from .verdicts import verdict_v4

__all__ = ["launch_intervals", "judged_against", "smallest_win", "Runs"]

Runs = list[list[float]]
Statistic = Callable[[Sequence[float]], float | None]


def judged_against(arms: Sequence[ArmRef]) -> tuple[str, ...]:
    """The controls a v4 verdict reads: both in A/B/A, the drift-corrected one in a longer design."""
    roles = [a.role for a in arms]
    return ("before", "restored") if roles.count("control") == 2 and roles.count("candidate") == 1 else ("corrected",)


def launch_intervals(
    arms: Sequence[ArmRef],
    runs: Sequence[Runs],
    of: Statistic,
    statistic_name: str,
    threshold_ratio: float | None = None,
    higher_is_better: bool = False,
) -> list[Interval]:
    """The candidate against the before, the restored and (a longer design) the drift-corrected control.

    ``runs`` holds each arm's runs (in ``arms`` order); ``threshold_ratio`` (the decision metric only) asks
    each interval for its p-value of an improvement smaller than the threshold."""
    # The drift-corrected control decides a longer design's decision metric; tails and guardrails, judged on
    # point estimates against both controls, are shown against those two.
    longer = judged_against(arms) == ("corrected",)
    names = ("before", "restored") + (("corrected",) if longer and threshold_ratio is not None else ())
    found = _blocks(arms, runs, of)
    if found is None:
        return [_none(name, statistic_name) for name in names]
    candidate, n_b, controls, launch = found
    against = _against(candidate, controls)
    return [
        _interval(
            name, statistic_name, compare(candidate, n_b, *against[name], launch, threshold_ratio=threshold_ratio, higher_is_better=higher_is_better)
        )
        for name in names
    ]


def _against(candidate: BlockEstimate, controls: list[BlockEstimate]) -> dict[str, tuple[list[BlockEstimate], list[float]]]:
    """Each control the candidate can be compared with: its blocks and their weights."""
    return {
        "before": ([controls[0]], [1.0]),
        "restored": ([controls[-1]], [1.0]),
        "corrected": (controls, control_weights([e.seq for e in controls], candidate.seq)),
    }


def _interval(control: str, statistic_name: str, c: Comparison4) -> Interval:
    return Interval(
        control=control,  # type: ignore[arg-type]
        statistic=statistic_name,  # type: ignore[arg-type]
        method="launch-t",
        ratio=c.ratio,
        low=c.low,
        high=c.high,
        resolvable=c.low is not None and c.high is not None and (c.high < 1 or c.low > 1),
        df=c.df or None,
        p_value=c.p_value,
    )


def _blocks(arms: Sequence[ArmRef], runs: Sequence[Runs], of: Statistic) -> tuple[BlockEstimate, int, list[BlockEstimate], LaunchVariance] | None:
    """(the pooled candidate at its blocks' mean seq, its blocks, the control blocks, the block variance); None
    when a block (or the pooled candidate) has no estimate. A candidate block without values adds nothing."""
    candidate_runs = [(a, r) for a, r in zip(arms, runs) if a.role == "candidate" and any(r)]
    pooled = block_estimate([run for _, r in candidate_runs for run in r], of)
    kept_controls = _estimates([(a, r) for a, r in zip(arms, runs) if a.role == "control"], of)
    kept_candidates = _estimates(candidate_runs, of)
    if pooled is None or not kept_candidates or not kept_controls:
        return None
    at = math.fsum(e.seq for e in kept_candidates) / len(kept_candidates)
    candidate = BlockEstimate(seq=at, value=pooled.value, rel_var=pooled.rel_var, df=pooled.df)
    return candidate, len(kept_candidates), kept_controls, launch_variance(kept_controls, kept_candidates)


def _estimates(blocks: Sequence[tuple[ArmRef, Runs]], of: Statistic) -> list[BlockEstimate]:
    """Each block's estimate; empty when any block has none."""
    out = [block_estimate(r, of, float(a.seq)) for a, r in blocks]
    return [e for e in out if e is not None] if None not in out else []


def _none(control: str, statistic_name: str) -> Interval:
    return Interval(
        control=control,  # type: ignore[arg-type]
        statistic=statistic_name,  # type: ignore[arg-type]
        method="launch-t",
        ratio=None,
        low=None,
        high=None,
        resolvable=False,
    )


# The smallest-change search: improvements are bisected to this many steps, then rounded up to the figure shown
# (0.01 %, two decimals of a percent), so the stated figure is itself a win and one step below it is not.
_STEPS = 80
_SHOWN_STEPS = 10_000  # steps of 0.01 % in a fraction
_GOODPUT_CEILING = 1024.0  # a higher-is-better statistic improved 102,400 %: past any share's reach


def smallest_win(arms: Sequence[ArmRef], runs: Sequence[Runs], of: Statistic, rule: DecisionRule, level: float) -> float | None:
    """The smallest observed improvement (a fraction, against each judged control) that the rule would call a
    win at this group's precision: the candidate's statistic moved (every candidate block scaled alike) with the
    control blocks, every block's spread, the launch variance and the degrees of freedom as observed, judged by
    :func:`.verdicts.verdict_v4` on the intervals :func:`launch_intervals` draws and, under ``bound``, admitted
    at ``level`` (Holm's strictest, ``alpha / groups``: a win whatever the other groups show).

    Rounded up to 0.01 % and checked: that figure is a win, a figure one step smaller is not. Every
    part of the rule is monotone in the candidate's statistic (the variances scale with it, the degrees of
    freedom do not), so a bisection finds the one boundary. None when no interval can be drawn or no
    improvement would be a win (a control not resolved from zero)."""
    found = _blocks(arms, runs, of)
    if found is None:
        return None
    candidate, n_b, controls, launch = found
    names = judged_against(arms)
    hib = rule.higher_is_better
    sign = 1 if hib else -1
    threshold_ratio = 1 + sign * rule.min_improvement
    against = _against(candidate, controls)
    base = [compare(candidate, n_b, *against[name], launch).ratio for name in names]
    if any(r is None or r <= 0 for r in base):
        return None
    # The least favourable judged control's ratio sets the observed improvement: max for a latency, min for goodput.
    worst = min(base) if hib else max(base)  # type: ignore[type-var]

    def wins(improvement: float) -> bool:
        scale = (1 + sign * improvement) / worst  # type: ignore[operator]
        moved = BlockEstimate(seq=candidate.seq, value=candidate.value * scale, rel_var=candidate.rel_var, df=candidate.df)
        found_at = [compare(moved, n_b, *against[n], launch, threshold_ratio=threshold_ratio, higher_is_better=hib) for n in names]
        intervals = [_interval(n, "median", c) for n, c in zip(names, found_at)]
        improvements = [None if c.ratio is None else sign * (c.ratio - 1) * 100 for c in found_at]
        verdict = verdict_v4(improvements, intervals, rule, None, clears=(False, False), drift_flagged=False, guardrails_held=True)
        admitted = rule.confidence != "bound" or (verdict.p_value is not None and verdict.p_value <= level)
        return verdict.win and admitted

    low, high = 0.0, _GOODPUT_CEILING if hib else 1 - 2**-20
    if wins(low):
        return low
    if not wins(high):
        return None
    for _ in range(_STEPS):
        mid = (low + high) / 2
        low, high = (low, mid) if wins(mid) else (mid, high)
    steps = math.ceil(high * _SHOWN_STEPS)
    while not wins(steps / _SHOWN_STEPS):  # binary rounding of the step: the next one up
        steps += 1
    return steps / _SHOWN_STEPS
