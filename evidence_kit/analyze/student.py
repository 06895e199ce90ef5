"""Student's t distribution for whole degrees of freedom: its two-sided tail and its quantiles.

The launch-level interval (``launch.py``) and the planner read t quantiles with the degrees of freedom the
data carry (Satterthwaite's, rounded down to a whole number: never more confidence than the data hold).
For a whole ``nu`` the distribution is a finite series in ``cos`` and ``sin`` of ``theta = atan(t / sqrt(nu))``
(Abramowitz & Stegun 26.7.3-4); only an odd ``nu`` needs ``atan`` itself, so the series is computed with
+ - x / and sqrt, and a quantile (found by bisection) is rounded to 12 significant digits, which a last-bit
difference of a platform's ``atan`` cannot move. Pure: no I/O.
"""

from __future__ import annotations

import math
from functools import lru_cache

__all__ = ["t_two_sided_tail", "t_one_sided_tail", "t_quantile", "MAX_DF"]

# Beyond this many degrees of freedom the quantile is the normal's to well under a displayed digit
# (t_0.975 at 2000 df is 1.96115 against 1.95996); a larger count is read as this one.
MAX_DF = 2000


def _within(t: float, nu: int) -> float:
    """``P(|T| <= t)`` for ``t >= 0`` and a whole ``nu >= 1``."""
    denom = nu + t * t
    cos2 = nu / denom
    sin = t / math.sqrt(denom)
    if nu % 2 == 0:
        term, total = 1.0, 1.0
        for j in range(2, nu, 2):  # 1 + 1/2 cos^2 + 1.3/(2.4) cos^4 + ...
            term *= cos2 * (j - 1) / j
            total += term
        return min(1.0, sin * total)
    theta = math.atan(t / math.sqrt(nu))
    if nu == 1:
        return min(1.0, 2 * theta / math.pi)
    cos = math.sqrt(cos2)
    term, total = cos, cos
    for j in range(3, nu - 1, 2):  # cos + 2/3 cos^3 + 2.4/(3.5) cos^5 + ...
        term *= cos2 * (j - 1) / j
        total += term
    return min(1.0, 2 / math.pi * (theta + sin * total))


def _whole(df: float) -> int:
    if not df >= 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df!r}")
    return min(MAX_DF, int(math.floor(df + 1e-9)))


def t_two_sided_tail(t: float, df: float) -> float:
    """``P(|T| >= |t|)`` for Student's t with ``floor(df)`` degrees of freedom (at most :data:`MAX_DF`)."""
    return max(0.0, 1.0 - _within(abs(t), _whole(df)))


def t_one_sided_tail(t: float, df: float) -> float:
    """``P(T <= t)`` for ``t <= 0`` and ``P(T >= t)`` for ``t > 0``: the tail beyond ``t`` on its own side."""
    return t_two_sided_tail(t, df) / 2


@lru_cache(maxsize=4096)
def _quantile(tail: float, nu: int) -> float:
    low, high = 0.0, 1.0
    while _within(high, nu) < 1 - tail:
        high *= 2
        if high > 1e12:
            return math.inf
    for _ in range(200):
        mid = (low + high) / 2
        if mid in (low, high):
            break
        if _within(mid, nu) < 1 - tail:
            low = mid
        else:
            high = mid
    return float(f"{high:.12g}")


def t_quantile(two_sided_level: float, df: float) -> float:
    """The ``q`` with ``P(|T| <= q) = two_sided_level``: ``t_quantile(0.95, 2)`` is 4.30265272975."""
    if not 0 < two_sided_level < 1:
        raise ValueError("the level must be in (0, 1)")
    return _quantile(round(1 - two_sided_level, 15), _whole(df))
