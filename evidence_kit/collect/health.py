"""The client checks itself: how busy the collector's own event loop was over one run.

A client that saturates silently inflates every latency it reports, so each run
record carries the collector's health as raw values: the lag of its event loop
(how late a timer set ``LOOP_LAG_INTERVAL_S`` ahead woke), summarised as p50 and max
with the sample count and interval, and the CPU seconds it used over the run's
wall time. ``analyze`` judges them against the trial's declared bounds.

A loop blocked outright cannot run the sampler: the block shows as one late wake,
and a wake still overdue when the run ends is counted then, so a block in the run's
last moment is not lost.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from .client import Clock

__all__ = ["LOOP_LAG_INTERVAL_S", "HealthMonitor"]

LOOP_LAG_INTERVAL_S = 0.01

CpuClock = Callable[[], float]


def _nearest_rank_p50(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max((len(ordered) + 1) // 2, 1) - 1]


class HealthMonitor:
    """Samples the running loop's lag and the collector's CPU between :meth:`start` and :meth:`stop`.

    ``cpu`` is the process's CPU time (every thread), ``loop_cpu`` that of the thread that
    runs the loop: an engine simulated in the same process (as in tests) or a helper thread
    adds to the first, and only the loop's own work to the second.
    """

    def __init__(
        self, clock: Clock, *, interval_s: float = LOOP_LAG_INTERVAL_S, cpu: CpuClock = time.process_time, loop_cpu: CpuClock = time.thread_time
    ):
        self.clock, self.interval_s, self.cpu, self.loop_cpu = clock, interval_s, cpu, loop_cpu
        self.lags: list[float] = []
        self._due: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._start: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def start(self) -> None:
        """Begin sampling on the running loop."""
        self._start = (self.clock(), self.cpu(), self.loop_cpu())
        # Due from the start, not from the first wake: a loop blocked before the timer ever
        # fires is still one overdue wake at the end.
        self._due = self._start[0] + self.interval_s
        self._timer = asyncio.get_running_loop().call_later(self.interval_s, self._wake)

    def _wake(self) -> None:
        # A timer's callback, as asyncio.sleep wakes a task from one, without the task, its future and its step:
        # a hundred wakes a second in every process of the collector (bench/collect_cpu.py, worker processes).
        if self._due is None:
            return
        woke = self.clock()
        self.lags.append(max(woke - self._due, 0.0))
        self._due = woke + self.interval_s
        self._timer = asyncio.get_running_loop().call_later(max(self._due - self.clock(), 0.0), self._wake)

    async def stop(self) -> dict[str, Any]:
        """Stop sampling; the run record's ``client`` field."""
        # The loop thread's clock read inside the process clock's window (first at the start, last at the stop),
        # so the thread's share is never more than the process's: it is a part of it.
        now, loop_cpu, cpu = self.clock(), self.loop_cpu(), self.cpu()
        due, self._due = self._due, None
        if self._timer is not None:
            self._timer.cancel()
        if due is not None and now > due:
            self.lags.append(now - due)  # the wake the loop was too busy to run
        t0, cpu0, loop_cpu0 = self._start
        cpu_s = round(max(cpu - cpu0, 0.0), 6)
        process = {
            "cpu_s": cpu_s,
            "loop_cpu_s": min(round(max(loop_cpu - loop_cpu0, 0.0), 6), cpu_s),
            "loop_lag_interval_s": self.interval_s,
            "loop_lag_samples": len(self.lags),
            "loop_lag_p50_s": round(_nearest_rank_p50(self.lags), 6) if self.lags else None,
            "loop_lag_max_s": round(max(self.lags), 6) if self.lags else None,
        }
        return {"wall_s": round(max(now - t0, 0.0), 6), "processes": [process]}
