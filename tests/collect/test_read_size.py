"""The collector's sockets and pipes read at most READ_SIZE bytes at a time, not asyncio's 256 KiB.

asyncio allocates its whole read size for every read; at 256 KiB that is an mmap and a munmap per read in a
process that has not yet freed a larger block (a fresh worker process): most of its CPU per streamed request.
"""

from __future__ import annotations

import asyncio
import socket

from evidence_kit.collect.lane_http import READ_SIZE, LaneConnection
from evidence_kit.collect.workers import _spawn


def test_a_lane_connection_reads_at_most_read_size_at_a_time() -> None:
    async def go() -> int:
        with socket.create_server(("127.0.0.1", 0)) as server:
            _, protocol = await asyncio.get_running_loop().create_connection(LaneConnection, *server.getsockname()[:2])
            assert protocol.transport is not None
            size = protocol.transport.max_size  # type: ignore[attr-defined]
            protocol.close()
            return int(size)

    assert asyncio.run(go()) == READ_SIZE < 128 * 1024


def test_the_collector_reads_a_worker_process_replies_at_most_read_size_at_a_time() -> None:
    async def go() -> list[int]:
        worker = await _spawn(0)
        try:
            pipes = worker.process._transport  # type: ignore[attr-defined]
            return [pipes.get_pipe_transport(fd).max_size for fd in (1, 2)]
        finally:
            await worker.close()

    assert asyncio.run(go()) == [READ_SIZE, READ_SIZE]
