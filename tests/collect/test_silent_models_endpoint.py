"""An endpoint whose ``GET /v1/models`` never answers (a gateway that fans it out to a dead backend, an engine
busy loading an adapter list) costs *every run* the full 10 s warm-up timeout before its /metrics scrape:
``open_connections`` is called per run with its default ``timeout=10.0`` and learns nothing from the last
run. A trial of 3 arms x 12 runs waits 6 minutes doing nothing, and each run prints the same note.

Expected: the warm-up costs a run at most a short, bounded wait once the arm has seen /v1/models not
answer (e.g. a per-arm memory, or a timeout of the order of a connect, not 10 s)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

from evidence_kit.collect.connections import arm_client, open_connections


def _silent_server() -> tuple[str, socket.socket]:
    """Accepts connections, reads requests, never answers."""
    sock = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            held.append(conn)  # kept open, never written to

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}", sock


def test_two_runs_do_not_each_wait_the_full_warm_up_timeout() -> None:
    url, sock = _silent_server()

    async def two_runs() -> tuple[list[int], float]:
        async with arm_client(30) as client:
            start = time.monotonic()
            opened = [await open_connections(client, url, 2) for _ in range(2)]  # what measure_run does, run by run
            return opened, time.monotonic() - start

    try:
        opened, elapsed = asyncio.run(two_runs())
    finally:
        sock.close()
    assert opened == [0, 0]
    assert elapsed < 5.0, f"two runs waited {elapsed:.1f} s for a /v1/models that never answers"
