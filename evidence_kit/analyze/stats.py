"""The statistics every published figure is made of: pure functions, no I/O.

- ``median``: the ordinary median (mean of the two middle values for an even count),
  used for *pooled* statistics.
- ``nearest_rank``: the nearest-rank percentile, the smallest value with at least
  ``p`` percent of the values at or below it, used for *per-run* statistics.
- ``bootstrap_ratio_interval``: a seeded percentile-bootstrap interval for the ratio
  of two medians, reproducible bit for bit from the same inputs on any platform
  (its random numbers come from SplitMix64, not from Python's ``random``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

__all__ = [
    "median",
    "nearest_rank",
    "change",
    "SplitMix64",
    "bootstrap_ratio_interval",
    "seed_for",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_LEVEL",
]

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_LEVEL = 0.95
_MASK64 = (1 << 64) - 1


def median(values: Sequence[float]) -> float | None:
    """Ordinary median; ``None`` for no values."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return None
    mid = n // 2
    if n % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def nearest_rank(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile ``p`` (0 < p <= 100): the value at rank ceil(p/100 * n)."""
    if not 0 < p <= 100:
        raise ValueError("p must be in (0, 100]")
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return None
    # p * n / 100 in exact integer arithmetic where possible, so 50 % of 4 is rank 2, not 2.0000001.
    rank = max(1, math.ceil(round(p * n, 9) / 100))
    return ordered[rank - 1]


def change(candidate: float | None, control: float | None) -> float | None:
    """Relative change of the candidate against a control: ``candidate / control - 1``.

    For latencies a negative change is faster. ``None`` when either side is
    missing or the control is zero.
    """
    if candidate is None or control is None or control == 0:
        return None
    return candidate / control - 1


class SplitMix64:
    """SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, identical everywhere."""

    def __init__(self, seed: int):
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (Lemire's multiply-shift; bias below 2**-50 for small n)."""
        return (self.next() * n) >> 64


def seed_for(*parts: object) -> int:
    """A 64-bit seed derived from the parts' text, so one bundle always draws the same resamples."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def bootstrap_ratio_interval(
    candidate: Sequence[float],
    control: Sequence[float],
    seed: int,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = BOOTSTRAP_LEVEL,
) -> tuple[float, float] | None:
    """Percentile-bootstrap interval of ``median(candidate) / median(control)``.

    Both samples are resampled with replacement, independently, ``resamples``
    times; the interval's ends are the nearest-rank percentiles
    ``(1 - level) / 2`` and ``(1 + level) / 2`` of the resampled ratios.
    ``None`` when either sample is empty or a resampled control median is zero.
    """
    if not candidate or not control:
        return None
    rng = SplitMix64(seed)
    n_cand, n_ctrl = len(candidate), len(control)
    ratios: list[float] = []
    for _ in range(resamples):
        cand = median([candidate[rng.below(n_cand)] for _ in range(n_cand)])
        ctrl = median([control[rng.below(n_ctrl)] for _ in range(n_ctrl)])
        if not ctrl:
            return None
        ratios.append(cand / ctrl)  # type: ignore[operator]
    tail = (1 - level) / 2 * 100
    low = nearest_rank(ratios, tail)
    high = nearest_rank(ratios, 100 - tail)
    assert low is not None and high is not None
    return low, high
