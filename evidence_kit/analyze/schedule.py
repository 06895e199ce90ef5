"""An open-loop run's schedule, a pure function of the plan (pure, no I/O): the collector sends by it
(``collect/arrivals.py``) and the analysis judges a run's client against it, not against the due times its
journal states (a hand-edited journal could state its late sends as its schedule)."""

from __future__ import annotations

import math

from ..model.trial import rate_text
from .stats import SplitMix64, seed_for

__all__ = ["schedule", "ARRIVAL_KEY"]

ARRIVAL_KEY = "evidence-kit/arrivals/v1"  # the first part of every schedule's seed


def schedule(count: int, rate: float, arrival: str, *, seed: int, input_nominal: int) -> list[float]:
    """The due offsets (seconds from the run's start) of ``count`` requests at ``rate`` per second: the same
    for the same plan seed, input size, rate and arrival kind, whatever the arm or repetition."""
    if arrival == "constant":
        return [i / rate for i in range(count)]
    if arrival != "poisson":
        raise ValueError(f"unknown arrival {arrival!r}")
    rng = SplitMix64(seed_for(ARRIVAL_KEY, seed, input_nominal, rate_text(rate), arrival))
    offsets, at = [], 0.0
    for i in range(count):
        if i:
            u = ((rng.next() >> 11) + 1) * 2.0**-53  # (0, 1]: never log(0)
            at += -math.log(u) / rate
        offsets.append(at)
    return offsets
