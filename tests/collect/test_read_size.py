"""The collector's sockets and pipes read at most READ_SIZE bytes at a time, not asyncio's 256 KiB.

asyncio allocates its whole read size for every read; at 256 KiB that is an mmap and a munmap per read in a
process that has not yet freed a larger block (a fresh worker process): most of its CPU per streamed request.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from asyncio.subprocess import PIPE
from typing import Any

from evidence_kit.collect.lane_http import READ_SIZE, LaneConnection
from evidence_kit.collect.workers import PROTOCOL_LIMIT, _spawn, _Worker


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


def test_a_request_and_a_reply_longer_than_read_size_cross_the_pipes_whole() -> None:
    # A worker reads a request of several reads' length (a long prompt) whole, and the collector a reply as long
    # (a conversation's long answer): a 300 KB body to a closed port comes back as its one failed record.
    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        worker = await _spawn(0)
        try:
            body = {"model": "m", "messages": [{"role": "user", "content": "x" * 300_000}], "max_tokens": 1}
            message = {"op": "send", "index": 0, "lane": 0, "url": _closed_port_url(), "body": body, "timeout": 5.0}
            sent = await worker.ask(message, 0, 30.0)
        finally:
            await worker.close()
        code = f"import json, time; print(json.dumps({{'op': 'clock', 'pad': 'y' * {3 * READ_SIZE}}}), flush=True); time.sleep(5)"
        echo = [sys.executable, "-c", code]
        process = await asyncio.create_subprocess_exec(*echo, stdin=PIPE, stdout=PIPE, stderr=PIPE, limit=PROTOCOL_LIMIT)
        long_reply = _Worker(1, process)
        try:
            replied = await long_reply.ask({"op": "hello"}, "clock", 30.0)
        finally:
            long_reply.kill()
            await long_reply.close()
        return sent, replied

    sent, replied = asyncio.run(go())
    assert sent["index"] == 0 and sent["record"]["ok"] is False and "ConnectError" in sent["record"]["error"]
    assert len(replied["pad"]) == 3 * READ_SIZE


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1/chat/completions"
