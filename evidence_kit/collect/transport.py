"""How a run's requests reach the engine: one interface, two transports.

A workload shape (:mod:`.shapes`) says which requests a run sends and when; a transport sends them.
:class:`HereTransport` streams them from the collector's own process and client; a
:class:`~.workers.WorkerPool` (worker processes, or Ray actors) streams them from its workers. Both
answer with the same timing fields (``t_send_s`` on the arm's clock, then
:meth:`~.client.Outcome.record`), so nothing after the send knows which one sent.
"""

from __future__ import annotations

from typing import Any, Protocol

import httpx

from .client import Clock, stream_chat
from .connections import open_connections
from .runs import send_all, send_scheduled, timing_fields

__all__ = ["Transport", "HereTransport"]


class Transport(Protocol):
    """What a workload shape sends a run's requests through."""

    async def open_connections(self, base_url: str, lanes: int) -> int:
        """Open every lane's connection before the run; how many answered."""
        ...

    async def begin(self) -> None:
        """Called just before the run's first request (a worker pool places its workers' clocks)."""
        ...

    async def end(self) -> list[dict[str, Any]]:
        """Called once the run's last request ended: entries for the run record's ``client.processes``
        beyond the collector's own."""
        ...

    def private(self) -> dict[str, Any] | None:
        """What identifies the machines that sent (the run record's ``private``), or ``None``."""
        ...

    async def send_all(self, url: str, bodies: list[dict[str, Any]], *, concurrency: int, timeout: float) -> list[dict[str, Any]]:
        """A closed loop: ``concurrency`` requests in flight; each body's timing fields, in body order."""
        ...

    async def send_scheduled(
        self, url: str, bodies: list[dict[str, Any]], offsets: list[float], *, start: float, timeout: float, max_in_flight: int | None = None
    ) -> list[dict[str, Any]]:
        """An open loop: body ``i`` sent at ``start + offsets[i]``; each body's timing fields, in body order."""
        ...

    async def send_turn(
        self, url: str, lane: int, index: int, body: dict[str, Any], headers: dict[str, str], *, timeout: float
    ) -> tuple[dict[str, Any], str]:
        """One request on ``lane``: its timing fields and the streamed answer's text."""
        ...


class HereTransport:
    """The collector's own process sends: its client (one connection a lane), its clock."""

    def __init__(self, client: httpx.AsyncClient, clock: Clock, t0: float):
        self.client, self.clock, self.t0 = client, clock, t0

    async def open_connections(self, base_url: str, lanes: int) -> int:
        return await open_connections(self.client, base_url, lanes)

    async def begin(self) -> None:
        return None

    async def end(self) -> list[dict[str, Any]]:
        return []  # the collector's own process is already the first entry

    def private(self) -> dict[str, Any] | None:
        return None

    async def send_all(self, url: str, bodies: list[dict[str, Any]], *, concurrency: int, timeout: float) -> list[dict[str, Any]]:
        outcomes = await send_all(self.client, url, bodies, concurrency=concurrency, clock=self.clock, timeout=timeout)
        return [timing_fields(o, self.t0) for o in outcomes]

    async def send_scheduled(
        self, url: str, bodies: list[dict[str, Any]], offsets: list[float], *, start: float, timeout: float, max_in_flight: int | None = None
    ) -> list[dict[str, Any]]:
        outcomes = await send_scheduled(
            self.client, url, bodies, offsets, start=start, clock=self.clock, timeout=timeout, max_in_flight=max_in_flight
        )
        return [timing_fields(o, self.t0) for o in outcomes]

    async def send_turn(
        self, url: str, lane: int, index: int, body: dict[str, Any], headers: dict[str, str], *, timeout: float
    ) -> tuple[dict[str, Any], str]:
        outcome = await stream_chat(self.client, url, body, clock=self.clock, timeout=timeout, lane=lane, headers=headers)
        return timing_fields(outcome, self.t0), outcome.text
