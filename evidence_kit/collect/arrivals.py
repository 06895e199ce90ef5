"""Open-loop arrivals: when each request of a run is due, and a scheduler that sends it then.

An open-loop run sends request ``i`` at its scheduled offset whatever is still in flight
(vLLM bench serve's ``--request-rate``, GuideLLM's poisson and constant profiles), so a
slower engine meets the same offered load instead of a gentler one, as it would in a
closed loop. The schedule is a pure function of the plan: :func:`schedule` (``analyze/schedule.py``) draws it from
the plan's seed, the group's input size and rate and the arrival kind, so every arm and
every repetition of a group offers exactly the same arrivals, bit for bit. ``poisson``
gaps are exponential (``-ln(u) / rate`` with ``u`` uniform in (0, 1] from SplitMix64, the
bootstrap's generator); ``constant`` gaps are ``1 / rate``. The first request is due at
offset 0.

:func:`send_open` keeps to the schedule: it sleeps until each request is due, hands it to
a sender at once (never waiting for an earlier one to end) and counts the request's send
wait from its due time, so ``send_wait_s`` is the send lag: how late the client was.
``max_in_flight`` (vLLM's ``--max-concurrency``) caps requests in flight; a request due
beyond the cap waits for a slot, and that wait is lag too. Each request in flight holds
a lane (its own connection, :mod:`.connections`): the lowest free one, so a run uses as
few connections as its peak in flight.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Awaitable, Callable

from ..analyze.schedule import ARRIVAL_KEY, schedule
from .client import Clock

__all__ = ["schedule", "send_open", "Lanes", "ARRIVAL_KEY", "WARM_LANES"]

# Lanes opened before an open-loop run (or max_in_flight if lower): a run at a rate has no planned concurrency;
# a request that finds no warm lane opens its connection itself, and its send lag shows the cost.
WARM_LANES = 32


class Lanes:
    """The lanes of requests in flight: each takes the lowest free lane, and gives it back when it ends."""

    def __init__(self) -> None:
        self._free: list[int] = []
        self._next = 0

    def take(self) -> int:
        if self._free:
            return heapq.heappop(self._free)
        self._next += 1
        return self._next - 1

    def give(self, lane: int) -> None:
        heapq.heappush(self._free, lane)

    @property
    def used(self) -> int:
        """How many lanes the run has used (its peak in flight)."""
        return self._next


Send = Callable[[int, int, float], Awaitable[None]]  # (index, lane, due on the clock)


async def send_open(offsets: list[float], start: float, send: Send, *, clock: Clock, max_in_flight: int | None = None) -> Lanes:
    """Call ``send(index, lane, due)`` for request ``index`` at ``start + offsets[index]`` on ``clock`` (the
    event loop's monotonic clock), without waiting for earlier requests; return when every send has ended.
    ``send`` records its own outcome (and its lag from ``due``); an exception from one ends the run."""
    lanes = Lanes()
    cap = asyncio.Semaphore(max_in_flight) if max_in_flight else None

    async def one(index: int, lane: int, due: float) -> None:
        try:
            await send(index, lane, due)
        finally:
            lanes.give(lane)
            if cap is not None:
                cap.release()

    async with asyncio.TaskGroup() as group:
        for index, offset in enumerate(offsets):
            due = start + offset
            delay = due - clock()
            if delay > 0:
                await asyncio.sleep(delay)
            if cap is not None:
                await cap.acquire()
            group.create_task(one(index, lanes.take(), due))
    return lanes
