"""Fault injection: by rate (spread exactly, not at random) or per request by header.

A rate ``r`` makes request ``i`` (counting generation requests from 0) faulty when
``floor((i+1)·r) > floor(i·r)``, so ``n`` requests carry exactly ``floor(n·r)`` faults of that
kind, evenly spread. When two kinds fall due on the same request the first (in
``FAULT_KINDS`` order) fires and the other stays due for the next request. The header
``X-Sim-Fault: <kind>`` forces a fault on one request and does not move the rate counters.
``metrics-503`` counts ``/metrics`` scrapes instead, with the same exact spread.
"""

from __future__ import annotations

import math
import threading
from collections import Counter

from pydantic import ValidationError

from ..errors import BadInput
from ..read.validation import describe_validation_error
from .profile import FAULT_KINDS, Faults

__all__ = ["FaultInjector", "FAULT_HEADER", "parse_fault_rates"]

FAULT_HEADER = "x-sim-fault"


class FaultInjector:
    """Decides each request's fault and counts the faults injected."""

    def __init__(self, faults: Faults):
        self.rates = faults.rates()
        self.stall_seconds = faults.stall_seconds
        self._index = 0
        self._scrapes = 0
        self.metrics_rate = faults.metrics_503
        self._due: Counter[str] = Counter()
        self.injected: Counter[str] = Counter()
        self._lock = threading.Lock()

    def choose(self, header: str | None) -> str | None:
        """The fault for the next request: the header's kind, else one due by rate, else None."""
        with self._lock:
            if header:
                kind = header.strip().lower()
                if kind not in FAULT_KINDS:
                    raise ValueError(f"unknown fault {kind!r} (one of {', '.join(FAULT_KINDS)})")
                self.injected[kind] += 1
                return kind
            i = self._index
            self._index += 1
            for kind, rate in self.rates.items():
                if rate and math.floor((i + 1) * rate) > math.floor(i * rate):
                    self._due[kind] += 1
            for kind in FAULT_KINDS:
                if self._due[kind]:
                    self._due[kind] -= 1
                    self.injected[kind] += 1
                    return kind
            return None

    def choose_metrics(self) -> bool:
        """Whether the next ``/metrics`` scrape fails (``metrics-503``, its own exact spread)."""
        with self._lock:
            i = self._scrapes
            self._scrapes += 1
            if self.metrics_rate and math.floor((i + 1) * self.metrics_rate) > math.floor(i * self.metrics_rate):
                self.injected["metrics-503"] += 1
                return True
            return False


def parse_fault_rates(items: tuple[str, ...] | list[str], base: Faults) -> Faults:
    """``["drop=0.1", "stall=0.05"]`` over a profile's fault section (CLI ``--fault``)."""
    values = base.model_dump()
    for item in items:
        name, sep, value = item.partition("=")
        kind = name.strip().lower()
        if not sep or kind not in (*FAULT_KINDS, "metrics-503", "stall-seconds"):
            raise BadInput(f"--fault {item!r}: expected KIND=RATE with KIND one of {', '.join(FAULT_KINDS)}, metrics-503 or stall-seconds")
        try:
            values[kind.replace("-", "_")] = float(value)
        except ValueError:
            raise BadInput(f"--fault {item!r}: {value!r} is not a number") from None
    try:
        return Faults.model_validate(values)
    except ValidationError as err:
        raise BadInput(f"--fault: {describe_validation_error(err)[0]}") from None
