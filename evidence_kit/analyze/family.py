"""One error budget per decision: Holm's step-down over a trial's groups (statistics v4).

A rule that promotes on any group's win tests every group, and with eight groups a true 8 % change under a
10 % rule promoted 78 % of decisions (issue 24). Under statistics v4 a ``bound`` win is a test of "an
improvement smaller than the threshold" at one-sided level ``alpha`` (its p-value at most ``alpha`` exactly
when the 95 % interval lies wholly beyond the threshold). Holm (1979) keeps the family-wise rate of any
false win at ``alpha`` over ``m`` groups: the p-values in ascending order, the ``j``-th (from 0) is tested at
``alpha / (m - j)`` and the procedure stops at the first that fails. A decision of ``T`` trials gives each
``alpha / T`` (Bonferroni across trials), so the decision as a whole keeps ``alpha``. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FAMILY_ALPHA", "holm"]

# The one-sided rate of a false win a 95 % two-sided interval keeps at its end: the family's whole budget.
FAMILY_ALPHA = 0.025


def holm(p_values: Sequence[float | None], alpha: float) -> list[tuple[float, bool]]:
    """Each hypothesis's (level it was tested at, rejected) under Holm's step-down at family-wise ``alpha``.

    A missing p-value (no interval) counts in the family and is never rejected. Those after the first
    failure are given that failure's level: none of them can be at or under it, so "rejected exactly when the
    p-value is at most the level tested at" holds for every row. Ties keep their given order.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i] is None, p_values[i] or 0.0, i))
    out: list[tuple[float, bool]] = [(alpha, False)] * m
    stopped: float | None = None
    for rank, i in enumerate(order):
        level = alpha / (m - rank)
        p = p_values[i]
        if stopped is None and p is not None and p <= level:
            out[i] = (level, True)
            continue
        stopped = level if stopped is None else stopped
        out[i] = (stopped, False)
    return out
