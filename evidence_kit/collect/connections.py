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
import resource
import ssl
import urllib.request
import weakref
from collections.abc import Sequence

import httpx

from .lane_http import LaneConnections, fast_path

__all__ = [
    "ArmClient",
    "LaneTransport",
    "arm_client",
    "open_connections",
    "SHARED_CONNECTIONS",
    "KEEPALIVE_EXPIRY_S",
    "proxy_for",
    "ensure_descriptors",
    "RESERVED_FILES",
]

# The shared pool: a /metrics scrape beside the telemetry sampler's, a gate, an identity capture.
SHARED_CONNECTIONS = 8
# How long an idle connection is kept for reuse. Connections are opened just before each run,
# so a lane is idle only between that and the run's first request (milliseconds) and within a
# run; an engine's own keep-alive timeout (uvicorn's, hence vLLM's and the simulator's, is 5 s)
# may close one sooner, and the pool then opens a new one.
KEEPALIVE_EXPIRY_S = 30.0


# Descriptors the collector holds beside the lanes and the shared pool: journals, telemetry and log files,
# an engine's pipes, the event loop's own, the interpreter's.
RESERVED_FILES = 64


def ensure_descriptors(concurrency: int) -> None:
    """Make room for a run at ``concurrency``: every slot holds its own connection for the whole run, so the
    collector needs that many descriptors more than it otherwise would. The soft ``RLIMIT_NOFILE`` is raised
    (up to the hard limit) when it is short; a hard limit too low for the plan is a ``ValueError`` naming both,
    before anything runs (past the limit, connections fail as unnamed connect errors the engine never saw, and
    the journal cannot be written)."""
    needed = concurrency + SHARED_CONNECTIONS + RESERVED_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise ValueError(
            f"concurrency {concurrency} needs about {needed} open files (one connection per request "
            f"slot, and {SHARED_CONNECTIONS + RESERVED_FILES} more), but this process may open at most "
            f"{hard} (RLIMIT_NOFILE); lower the concurrency or raise the limit (ulimit -n)"
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def proxy_for(url: httpx.URL, proxies: dict[str, str] | None = None) -> str | None:
    """The proxy the environment names for ``url`` (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, less
    the hosts ``NO_PROXY`` lists), as httpx's own client honours them; None to connect directly.
    ``proxies``: the environment's, read once by the caller (:func:`urllib.request.getproxies_environment`)."""
    proxies = urllib.request.getproxies_environment() if proxies is None else proxies
    # (proxy_bypass_environment is in the standard library, not in its type stubs.)
    if not proxies or urllib.request.proxy_bypass_environment(url.host, proxies):  # type: ignore[attr-defined]
        return None
    return proxies.get(url.scheme) or proxies.get("all")


class LaneTransport(httpx.AsyncBaseTransport):
    """A shared connection pool, and one single-connection pool per lane (created when first used); each
    through the proxy the environment names for the request's URL, if any (:func:`proxy_for`)."""

    def __init__(self, *, shared: int = SHARED_CONNECTIONS, keepalive_expiry: float = KEEPALIVE_EXPIRY_S):
        self._keepalive_expiry = keepalive_expiry
        # One TLS context for every pool, made when the first pool that may need it is: creating one per lane
        # would load the CA bundle each time, and a plain-HTTP engine needs none.
        self._ssl: ssl.SSLContext | None = None
        # Each lane's own connections to a plain-HTTP endpoint (lane_http): the timed requests' path.
        self._lanes: dict[int, LaneConnections] = {}
        self._shared_size = shared
        self._pools: dict[tuple[int | None, str | None], httpx.AsyncHTTPTransport] = {}
        # The environment's proxies, read when the client is made (as httpx's own client does), not on
        # every request of a run; each host's answer kept.
        self._proxies = urllib.request.getproxies_environment()
        self._proxy_of: dict[tuple[str, str], str | None] = {}

    def _pool(self, lane: int | None, proxy: str | None) -> httpx.AsyncHTTPTransport:
        pool = self._pools.get((lane, proxy))
        if pool is None:
            size = self._shared_size if lane is None else 1
            limits = httpx.Limits(max_connections=size, max_keepalive_connections=size, keepalive_expiry=self._keepalive_expiry)
            if self._ssl is None:
                self._ssl = httpx.create_ssl_context()
            pool = self._pools[lane, proxy] = httpx.AsyncHTTPTransport(verify=self._ssl, limits=limits, proxy=proxy)
        return pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        where = (request.url.scheme, request.url.host)
        if where not in self._proxy_of:
            self._proxy_of[where] = proxy_for(request.url, self._proxies)
        lane, proxy = request.extensions.get("lane"), self._proxy_of[where]
        if lane is not None and fast_path(request, proxy):
            connections = self._lanes.get(lane)
            if connections is None:
                connections = self._lanes[lane] = LaneConnections(self._keepalive_expiry)
            return await connections.handle(request)
        return await self._pool(lane, proxy).handle_async_request(request)

    def direct(self, lane: int, url: httpx.URL) -> LaneConnections | None:
        """Lane ``lane``'s own connections, when a request to ``url`` may take them without an httpx request
        (:func:`~.client.stream_chat`'s streamed requests): plain HTTP, no proxy, as :func:`fast_path` asks."""
        if url.scheme != "http":
            return None
        where = (url.scheme, url.host)
        if where not in self._proxy_of:
            self._proxy_of[where] = proxy_for(url, self._proxies)
        if self._proxy_of[where] is not None:
            return None
        connections = self._lanes.get(lane)
        if connections is None:
            connections = self._lanes[lane] = LaneConnections(self._keepalive_expiry)
        return connections

    async def aclose(self) -> None:
        for connections in self._lanes.values():
            connections.close()
        for pool in self._pools.values():
            await pool.aclose()


class ArmClient(httpx.AsyncClient):
    """An arm's client (:func:`arm_client`): an ``httpx.AsyncClient`` whose lanes a streamed request may take
    directly (:meth:`LaneTransport.direct`), its head written as this client would write it (:meth:`post_head`)."""

    def __init__(self, timeout: float):
        self.lanes = LaneTransport()
        super().__init__(transport=self.lanes, timeout=timeout)
        self._heads: dict[tuple[str, tuple[tuple[str, str], ...]], bytes] = {}

    def post_head(self, url: str, headers: dict[str, str], length: int) -> bytes | None:
        """The head of a POST of ``length`` bytes to ``url`` with ``headers``: the bytes httpx would send (its
        request line, then its headers: the client's, these, ``Content-Length`` last). Made once per URL and
        headers while the client holds no cookies (with cookies, each request's are its own); ``None`` for
        headers that would change the body's framing. (Keyed by the URL as written: hashing an ``httpx.URL``
        spells it out again, half of this call's time.)"""
        if any(name.lower() in ("content-length", "transfer-encoding") for name in headers):
            return None
        key = (url, tuple(headers.items()))
        template = None if self.cookies else self._heads.get(key)
        if template is None:
            request = self.build_request("POST", url, content=b"-", headers=headers)
            raw = request.headers.raw
            if not raw or raw[-1][0].lower() != b"content-length":
                return None
            lines = [request.method.encode() + b" " + request.url.raw_path + b" HTTP/1.1"]
            lines += [name + b": " + value for name, value in raw[:-1]]
            template = b"\r\n".join(lines) + b"\r\n" + raw[-1][0] + b": "
            if not self.cookies:
                if len(self._heads) > 256:  # a conversation's session header each: bounded
                    self._heads.clear()
                self._heads[key] = template
        return template + str(length).encode() + b"\r\n\r\n"


def arm_client(timeout: float) -> ArmClient:
    """The one client of an arm: timed requests on lanes, everything else on the shared pool."""
    return ArmClient(timeout)


# Endpoints of a client whose /v1/models answered no lane: not asked again by that client, so a gateway
# that never answers the route costs an arm one wait, not one per run.
_SILENT: weakref.WeakKeyDictionary[httpx.AsyncClient, set[str]] = weakref.WeakKeyDictionary()


async def open_connections(client: httpx.AsyncClient, base_url: str, lanes: int | Sequence[int], *, timeout: float = 2.0) -> int:
    """Open (or keep) the connection of lanes ``0 .. lanes-1`` (or of the lanes listed: a worker process's
    slots) with one ``GET /v1/models`` each, all at once.

    Any HTTP answer leaves its connection open for the run (a 404 from an endpoint without
    ``/v1/models`` too); vLLM serves the route in its API server, so no engine counter moves.
    Returns how many lanes answered; a lane that did not simply opens its connection with
    its first request, as without this step. An endpoint that answered no lane (within
    ``timeout``) is not asked again by the same client: 0 at once.
    """
    url = f"{base_url.rstrip('/')}/v1/models"
    silent = _SILENT.setdefault(client, set())
    if url in silent:
        return 0

    async def one(lane: int) -> bool:
        try:
            await client.get(url, timeout=timeout, extensions={"lane": lane})
        except httpx.HTTPError:
            return False
        return True

    numbers = range(lanes) if isinstance(lanes, int) else list(lanes)
    answered = sum(await asyncio.gather(*(one(lane) for lane in numbers)))
    if numbers and not answered:
        silent.add(url)
    return answered
