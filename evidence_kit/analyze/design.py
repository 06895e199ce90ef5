"""The design analysis: a trial's decision metric block by block, and the drift of its control.

A trial alternates the control (A) and the candidate (B): A/B/A, A/B/A/B/A, A/B/B/A, ...
Every arm is one *block*. The predeclared rule compares the pooled candidate with the first
and the last control block (``groups.py``); this module reads every block of one group:
the median of each, the least-squares line through the control blocks' medians over the
arms' positions (``seq``), the control that line gives where the candidate ran (the mean
``seq`` of the candidate blocks), and the candidate against that drift-corrected control and
against each control block. For A/B/A the corrected control is the mean of the two controls.
Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..model.trial import ArmRef
from .report import BlockComparison, DesignBlock, DesignResult
from .stats import change, median

__all__ = ["design_result", "linear_fit"]


def linear_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares line through the points: ``(slope, intercept)``; at least two distinct xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return slope, my - slope * mx


def _pct(fraction: float | None) -> float | None:
    return None if fraction is None else fraction * 100


def design_result(arms: Sequence[ArmRef], values: Sequence[Sequence[float]], of: Callable[[Sequence[float]], float | None] = median) -> DesignResult:
    """One group's design analysis from each arm's ok values of the decision metric (in ``arms`` order); ``of``
    is the rule's statistic (the median; goodput's share: the mean of its 0/1 values)."""
    medians = [of(v) for v in values]
    blocks = [
        DesignBlock(seq=ref.seq, phase=ref.phase, block=sum(a.phase == ref.phase for a in arms[: i + 1]), median=m, n=len(v))
        for i, (ref, m, v) in enumerate(zip(arms, medians, values))
    ]
    controls = [(ref.seq, m) for ref, m in zip(arms, medians) if ref.role == "control"]
    # Where the candidate ran *with data*: a candidate block with no ok value adds nothing to the pooled
    # candidate, so the line is not evaluated at its position either (all of them if none has data).
    candidate_seqs = [ref.seq for ref, v in zip(arms, values) if ref.role == "candidate" and v] or [
        ref.seq for ref in arms if ref.role == "candidate"
    ]
    candidate = of([x for ref, v in zip(arms, values) if ref.role == "candidate" for x in v])
    at = sum(candidate_seqs) / len(candidate_seqs)
    drift: float | None = None
    corrected: float | None = None
    known = [m for _, m in controls if m is not None]
    if len(known) == len(controls):
        slope, intercept = linear_fit([float(s) for s, _ in controls], known)
        corrected = intercept + slope * at
        drift = _pct(slope / known[0]) if known[0] and math.isfinite(slope / known[0]) else None
    return DesignResult(
        blocks=blocks,
        drift_pct_per_arm=drift,
        corrected_at_seq=at,
        corrected_control=corrected,
        change_vs_corrected_pct=_pct(change(candidate, corrected)),
        vs_controls=[BlockComparison(seq=s, change_pct=_pct(change(candidate, m))) for s, m in controls],
    )
