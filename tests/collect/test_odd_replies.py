"""Replies a real engine should not send, from a real HTTP server on 127.0.0.1: never a pass, never a crash."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

import httpx
import pytest

from evidence_kit.collect.gates import run_gate
from evidence_kit.collect.lifecycle import capture_identity
from evidence_kit.model.dialects import DIALECTS


class CannedServer:
    """Answers every request, on any path, with the same JSON body, or with ``events`` as a
    server-sent event stream (one connection at a time)."""

    def __init__(self, reply: Any, *, events: list[Any] | None = None):
        kind = b"application/json" if events is None else b"text/event-stream"
        body = (
            json.dumps(reply).encode()
            if events is None
            else b"".join(b"data: " + (e.encode() if isinstance(e, str) else json.dumps(e).encode()) + b"\n\n" for e in events)
        )
        self.response = (
            b"HTTP/1.1 200 OK\r\ncontent-type: " + kind + b"\r\nconnection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, rest = data.split(b"\r\n\r\n", 1)
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0)
                while len(rest) < length:
                    rest += conn.recv(65536)
                conn.sendall(self.response)

    def __enter__(self) -> CannedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def _run(coro_fn):
    async def go():
        async with httpx.AsyncClient() as client:
            return await coro_fn(client)

    return asyncio.run(go())


@pytest.mark.parametrize("gate", ["smoke", "tool-result"])
@pytest.mark.parametrize("finish", ["abort", "error"])
def test_a_gate_reply_the_engine_finished_as_aborted_fails_the_gate(gate: str, finish: str) -> None:
    events = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Half a sen"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        "[DONE]",
    ]
    opts = {"timeout_s": 10, "max_tokens": 16, "needle_words": 64, "seed": 1}
    with CannedServer(None, events=events) as server:
        ok, detail = _run(lambda client: run_gate(gate, client, server.url, "m", opts))
    assert not ok and f"finish_reason {finish!r}" in detail


@pytest.mark.parametrize("gate", ["smoke", "json", "needle", "tool-result"])
def test_a_gate_answered_without_a_stream_fails(gate: str) -> None:
    # The timed requests stream: an engine that answers only non-streamed must not pass a gate.
    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}]}
    opts = {"timeout_s": 10, "max_tokens": 16, "needle_words": 64, "seed": 1}
    with CannedServer(reply) as server:
        ok, detail = _run(lambda client: run_gate(gate, client, server.url, "m", opts))
    assert not ok and detail == "stream failed: incomplete, http 200"


@pytest.mark.parametrize("reply", [[1, 2], {"data": "x"}, "text"])
def test_identity_of_an_endpoint_answering_odd_json_is_empty_not_a_crash(reply: Any) -> None:
    with CannedServer(reply) as server:
        identity, _ = _run(lambda client: capture_identity(client, server.url, DIALECTS["vllm"], log_path=None, engine=None))
    assert identity.models == [] and identity.kv_token_slots is None
