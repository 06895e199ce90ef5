"""Statistics v4's intervals of one group: the blocks of its design, compared launch by launch.

A/B/A is judged against both controls (the before and the restored), each with the launch variance the two
controls' disagreement holds; a longer design (A/B/A/B/A, A/B/B/A, ...) is judged against the drift-corrected
control, the control blocks' least-squares line where the candidate ran, whose ends the before and restored
intervals are shown beside. See ``launch.py`` for the interval. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..model.trial import ArmRef
from .launch import BlockEstimate, LaunchVariance, block_estimate, compare, control_weights, launch_variance
from .report import Interval
from .student import t_quantile

__all__ = ["launch_intervals", "judged_against", "detectable_v4", "Runs"]

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
    against = {
        "before": ([controls[0]], [1.0]),
        "restored": ([controls[-1]], [1.0]),
        "corrected": (controls, control_weights([e.seq for e in controls], candidate.seq)),
    }
    out = []
    for name in names:
        blocks, weights = against[name]
        c = compare(candidate, n_b, blocks, weights, launch, threshold_ratio=threshold_ratio, higher_is_better=higher_is_better)
        out.append(
            Interval(
                control=name,  # type: ignore[arg-type]
                statistic=statistic_name,  # type: ignore[arg-type]
                method="launch-t",
                ratio=c.ratio,
                low=c.low,
                high=c.high,
                resolvable=c.low is not None and c.high is not None and (c.high < 1 or c.low > 1),
                df=c.df or None,
                p_value=c.p_value,
            )
        )
    return out


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


POWER_LEVEL = 0.80


def detectable_v4(intervals: Sequence[Interval], threshold: float) -> float | None:
    """The smallest true improvement (a fraction) the group's rule would have called a win with 80 % power:
    the threshold plus the widest judged interval's half-width scaled by ``(t_0.975 + t_0.80) / t_0.975`` at
    its degrees of freedom. None when an interval could not be drawn."""
    widest: float | None = None
    for i in intervals:
        if i.low is None or i.high is None or not i.df:
            return None
        scaled = (i.high - i.low) / 2 * (t_quantile(0.95, i.df) + t_quantile(2 * POWER_LEVEL - 1, i.df)) / t_quantile(0.95, i.df)
        widest = scaled if widest is None else max(widest, scaled)
    return None if widest is None else threshold + widest
