"""The collector's HTTP client: one connection per request slot of a run, opened before the run.

A run keeps ``concurrency`` requests in flight, each slot sending its requests one after
another. Each slot gets a *lane*: a pool of exactly one keep-alive connection, chosen by
the request's ``lane`` extension (:func:`~.client.stream_chat`), so a slot always finds its
own connection and never queues behind another's. Before the run :func:`open_connections`
sends one cheap ``GET /v1/models`` on every lane, so the run's first wave finds every
connection open instead of opening them all at once.

Why lanes, not one shared pool of ``concurrency`` connections: httpcore's pool hands a
burst of requests that arrive in one event-loop turn the *same* idle connection (it is
still idle until the first of them starts on it); every other request then fails over to
the next idle one, and so on, so a burst of C requests on C warm connections waits
O(C^2) pool passes: 115 ms at the p99 at C = 32 and 415 ms at C = 64 in
``bench/warm_connections.py``, far more than opening C new connections costs (12-24 ms;
``docs/benchmarks.md``). With one connection per lane there is nothing to contend for.

Everything else (readiness, identity, ``/metrics``, telemetry, gates, calibration) goes
through the shared pool of the same client, so the telemetry sampler never takes a slot's
connection in the middle of a run.
"""

from __future__ import annotations

import asyncio
import ssl

import httpx

__all__ = ["LaneTransport", "arm_client", "open_connections", "SHARED_CONNECTIONS", "KEEPALIVE_EXPIRY_S"]

# The shared pool: a /metrics scrape beside the telemetry sampler's, a gate, an identity capture.
SHARED_CONNECTIONS = 8
# How long an idle connection is kept for reuse. Connections are opened just before each run,
# so a lane is idle only between that and the run's first request (milliseconds) and within a
# run; an engine's own keep-alive timeout (uvicorn's, hence vLLM's and the simulator's, is 5 s)
# may close one sooner, and the pool then opens a new one.
KEEPALIVE_EXPIRY_S = 30.0


class LaneTransport(httpx.AsyncBaseTransport):
    """A shared connection pool, and one single-connection pool per lane (created when first used)."""

    def __init__(self, *, shared: int = SHARED_CONNECTIONS, keepalive_expiry: float = KEEPALIVE_EXPIRY_S):
        self._keepalive_expiry = keepalive_expiry
        # One TLS context for every pool: creating one per lane would load the CA bundle each time.
        self._ssl: ssl.SSLContext = httpx.create_ssl_context()
        self._shared = self._pool(shared)
        self._lanes: dict[int, httpx.AsyncHTTPTransport] = {}

    def _pool(self, size: int) -> httpx.AsyncHTTPTransport:
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size,
                              keepalive_expiry=self._keepalive_expiry)
        return httpx.AsyncHTTPTransport(verify=self._ssl, limits=limits)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        lane = request.extensions.get("lane")
        if lane is None:
            return await self._shared.handle_async_request(request)
        pool = self._lanes.get(lane)
        if pool is None:
            pool = self._lanes[lane] = self._pool(1)
        return await pool.handle_async_request(request)

    async def aclose(self) -> None:
        for pool in (self._shared, *self._lanes.values()):
            await pool.aclose()


def arm_client(timeout: float) -> httpx.AsyncClient:
    """The one client of an arm: timed requests on lanes, everything else on the shared pool."""
    return httpx.AsyncClient(transport=LaneTransport(), timeout=timeout)


async def open_connections(client: httpx.AsyncClient, base_url: str, lanes: int, *, timeout: float = 10.0) -> int:
    """Open (or keep) the connection of lanes ``0 .. lanes-1`` with one ``GET /v1/models`` each, all at once.

    Any HTTP answer leaves its connection open for the run (a 404 from an endpoint without
    ``/v1/models`` too); vLLM serves the route in its API server, so no engine counter moves.
    Returns how many lanes answered; a lane that did not simply opens its connection with
    its first request, as without this step.
    """
    url = f"{base_url.rstrip('/')}/v1/models"

    async def one(lane: int) -> bool:
        try:
            await client.get(url, timeout=timeout, extensions={"lane": lane})
        except httpx.HTTPError:
            return False
        return True

    answered = await asyncio.gather(*(one(lane) for lane in range(lanes)))
    return sum(answered)
