"""The readiness wait against a real HTTP server that never becomes ready."""

from __future__ import annotations

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from evidence_kit.collect.lifecycle import EngineFailed, wait_ready


class _Starting(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.send_response(503)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def test_no_poll_may_reach_past_the_deadline() -> None:
    # A readiness URL that hangs would hold each poll for its whole timeout: every poll's
    # timeout must fit in what is left of timeout_s (it was a fixed 5 s, past a 1 s deadline).
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Starting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    timeouts: list[float] = []

    async def record(request: httpx.Request) -> None:
        timeouts.append(request.extensions["timeout"]["read"])

    async def go() -> None:
        async with httpx.AsyncClient(event_hooks={"request": [record]}) as client:
            await wait_ready(client, f"http://127.0.0.1:{server.server_address[1]}/health", timeout_s=1.0, engine=None)

    try:
        with pytest.raises(EngineFailed, match="not ready after 1s"):
            asyncio.run(go())
    finally:
        server.shutdown()
    assert len(timeouts) >= 2 and all(0.1 <= t <= 1.0 for t in timeouts), timeouts
