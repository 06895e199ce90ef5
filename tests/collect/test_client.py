"""The streaming client against the simulator over real HTTP: timings, both reasoning fields, faults."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest

from evidence_kit.collect.client import stream_chat
from evidence_kit.collect.connections import arm_client
from evidence_kit.collect.journal_writer import JournalWriter
from evidence_kit.collect.runs import request_record
from evidence_kit.engine_sim.profile import load_profile
from evidence_kit.engine_sim.server import running_simulator

MODEL = "sim-org/sim-model-7b-simulated"
BODY = {
    "model": MODEL,
    "messages": [{"role": "user", "content": "Summarise the notes."}],
    "max_tokens": 300,
    "temperature": 0,
    "seed": 3,
    "reasoning_effort": "low",
}


_ON_A_LANE = [False]


@pytest.fixture(autouse=True, params=["pooled", "on-a-lane"])
def _client(request: pytest.FixtureRequest):
    """Every test twice: on a plain httpx client's pool, and on a lane of the collector's own client (its own
    connection, collect/lane_http.py), which must time and fail every stream the same way."""
    _ON_A_LANE[0] = request.param == "on-a-lane"
    yield
    _ON_A_LANE[0] = False


def stream(url: str, body: dict = BODY, *, headers: dict | None = None, timeout: float = 20.0):
    async def go():
        if _ON_A_LANE[0]:
            async with arm_client(timeout) as client:
                chat = f"{url}/v1/chat/completions"
                return await stream_chat(client, chat, body, clock=time.monotonic, timeout=timeout, lane=0, headers=headers)
        async with httpx.AsyncClient(headers=headers or {}) as client:
            return await stream_chat(client, f"{url}/v1/chat/completions", body, clock=time.monotonic, timeout=timeout)

    return asyncio.run(go())


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory):
    truth = tmp_path_factory.mktemp("gt") / "truth.jsonl"
    with running_simulator("original", time_scale=50, ground_truth=truth) as url:
        yield url, truth


def test_a_stream_is_timed_in_order_and_counted(sim) -> None:
    url, _ = sim
    out = stream(url)
    rec = out.record()
    assert out.ok and rec["error"] is None and rec["finish_reason"] in ("stop", "length")
    assert 0 < rec["headers_s"] <= rec["ttft_s"] <= rec["ttft_content_s"] <= rec["last_token_s"] <= rec["e2e_s"]
    assert rec["reasoning_tokens"] > 0 and rec["completion_tokens"] >= rec["reasoning_tokens"]
    assert rec["prompt_tokens"] > 0
    assert len(rec["itl_us"]) == rec["token_events"] - 1 and all(g >= 0 for g in rec["itl_us"])
    assert out.text  # visible content was assembled


def test_reasoning_content_field_is_accepted_too(tmp_path: Path) -> None:
    profile = load_profile("original")
    profile = profile.model_copy(update={"output": profile.output.model_copy(update={"reasoning_field": "reasoning_content"})})
    with running_simulator(profile, time_scale=5) as url:
        out = stream(url)
    # The first token is reasoning; visible content comes strictly later.
    assert out.ok and out.t_first is not None and out.t_first_content is not None
    assert out.t_first < out.t_first_content


def test_role_only_first_chunk_is_not_a_token(tmp_path: Path) -> None:
    truth = tmp_path / "truth.jsonl"
    # Slow enough that the role chunk and the first token arrive in separate reads.
    with running_simulator("original", time_scale=2, ground_truth=truth) as url:
        out = stream(url, {**BODY, "max_tokens": 8, "request_id": "client-test-role"})
    record = json.loads(truth.read_text().splitlines()[-1])
    kinds = [event[1] for event in record["events"]]
    assert kinds[0] == "role"
    first_delta = next(e[0] for e in record["events"] if e[1] == "delta")
    # The client's first token follows the server's first delta, never its role-only chunk.
    assert out.ok and out.t_first >= first_delta > record["events"][0][0]
    assert out.record()["token_events"] == kinds.count("delta")


@pytest.mark.parametrize(
    "fault, expect",
    [
        ("http-500", "http 500"),
        ("http-503", "http 503"),
        ("malformed", "malformed stream"),
        ("drop", "disconnected"),
    ],
)
def test_every_fault_is_a_failed_outcome_with_its_reason(sim, fault: str, expect: str) -> None:
    url, _ = sim
    out = stream(url, headers={"X-Sim-Fault": fault})
    rec = out.record()
    assert not out.ok and rec["e2e_s"] is None and expect in rec["error"]


def test_a_stall_times_out_as_a_failed_outcome(sim) -> None:
    url, _ = sim
    out = stream(url, headers={"X-Sim-Fault": "stall"}, timeout=0.5)
    assert not out.ok and out.error.startswith("timeout")


def _closed_port_url() -> str:
    """A local URL nothing listens on (a port just bound and released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_a_closed_port_is_a_failed_outcome() -> None:
    out = stream(_closed_port_url())
    assert not out.ok and out.error.startswith("transport")


def test_time_waiting_inside_the_client_is_not_charged_to_the_engine() -> None:
    """Two requests through one pooled connection: the second waits for the first inside the
    client; its TTFT starts when it goes on the wire, and the wait is journalled apart.

    Held by the order of the clock readings, not by comparing the two latencies: on a loaded machine one
    ~75 ms stream took 4x the other's (the simulator and the client both slowed), with nothing charged wrongly."""

    async def go(url: str):
        limits = httpx.Limits(max_connections=1)
        async with httpx.AsyncClient(limits=limits) as client:
            return await asyncio.gather(
                *(stream_chat(client, f"{url}/v1/chat/completions", BODY, clock=time.monotonic, timeout=20.0) for _ in range(2))
            )

    with running_simulator("original", time_scale=5) as url:
        first, second = asyncio.run(go(url))
    assert first.ok and second.ok
    slower, other = (first, second) if first.t_send > second.t_send else (second, first)
    assert slower.completion_tokens == other.completion_tokens  # same prompt and seed: the same output
    # The one that waited went on the wire only once the other's reply had ended (one connection) ...
    assert slower.t_intent is not None and slower.t_intent <= other.t_send and slower.t_send >= other.t_end
    # ... so its engine times start there, and the wait, the other's whole stream, is journalled apart.
    waited, timed = slower.record(), other.record()
    assert waited["send_wait_s"] == round(slower.t_send - slower.t_intent, 6) >= timed["e2e_s"] - 1e-6
    assert waited["e2e_s"] == round(slower.t_end - slower.t_send, 6)


def _canned_server(reply: bytes | None):
    """A real HTTP server on 127.0.0.1 that answers one request with ``reply`` as is
    (``None``: it reads the request and never answers, until the client gives up)."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            header, rest = data.split(b"\r\n\r\n", 1)
            length = int(next(line.split(b":")[1] for line in header.split(b"\r\n") if line.lower().startswith(b"content-length")))
            while len(rest) < length:
                rest += conn.recv(65536)
            if reply is None:
                conn.recv(1)  # returns once the client closes the connection
            else:
                conn.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{server.getsockname()[1]}", server


def _reply(status: str, body: bytes, *, length: int | None = None) -> bytes:
    """An HTTP/1.1 reply; ``length`` other than the body's announces bytes that never come."""
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/event-stream\r\nconnection: close\r\n"
        f"content-length: {len(body) if length is None else length}\r\n\r\n"
    ).encode() + body


def _sse(events: list[str]) -> bytes:
    return "".join(f"data: {e}\n\n" for e in events).encode()


def _canned_sse_server(events: list[str]):
    """A real HTTP server on 127.0.0.1 that answers every request with the given SSE events."""
    return _canned_server(_reply("200 OK", _sse(events)))


@pytest.mark.parametrize("reason", ["abort", "error"])
def test_a_stream_the_engine_finished_as_aborted_is_a_failed_outcome(reason: str) -> None:
    chunk = {"id": "x", "object": "chat.completion.chunk", "model": MODEL}
    events = [
        json.dumps({**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        json.dumps({**chunk, "choices": [{"index": 0, "delta": {"content": "Half an"}}]}),
        json.dumps({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}),
        "[DONE]",
    ]
    url, server = _canned_sse_server(events)
    with server:
        out = stream(url)
    assert out.finish_reason == reason and out.text == "Half an"
    assert not out.ok and reason in out.error and out.record()["e2e_s"] is None


@pytest.mark.parametrize("event", ['{"choices": [1]}', '{"choices": 5}', '{"choices": [], "usage": [3]}', '{"choices": [{"delta": {"content": 7}}]}'])
def test_json_of_the_wrong_shape_is_a_failed_outcome_not_a_crash(event: str) -> None:
    url, server = _canned_sse_server([event, "[DONE]"])
    with server:
        out = stream(url)
    assert not out.ok and out.error.startswith("malformed stream: unexpected event shape")


def test_a_stream_that_trickles_past_the_request_limit_is_a_timeout() -> None:
    # At time scale 1 the 300 tokens take the simulated model well over a second, each
    # arriving within milliseconds of the last: no single read ever waits for the limit.
    body = {**BODY, "max_tokens": 300, "ignore_eos": True}
    body.pop("reasoning_effort")
    with running_simulator("original", time_scale=1) as url:
        out = stream(url, body, timeout=0.8)
    assert out.token_times, "tokens were arriving"
    assert not out.ok and out.error == "timeout (not finished within the 0.8s limit)"


_CHUNK = {"id": "x", "object": "chat.completion.chunk", "model": MODEL}
_TOKEN = json.dumps({**_CHUNK, "choices": [{"index": 0, "delta": {"content": "Half an"}}]})


@pytest.mark.parametrize(
    "reply, reason",
    [
        ("closed port", "transport: ConnectError"),
        (_reply("503 Service Unavailable", b"overloaded"), "http 503: overloaded"),
        (_reply("200 OK", _sse(["{not json", "[DONE]"])), "malformed stream: not JSON: '{not json'"),
        (_reply("200 OK", _sse(['{"error": {"message": "no KV space"}}', "[DONE]"])), 'error event: {"message": "no KV space"}'),
        (_reply("200 OK", _sse(["[1, 2]", "[DONE]"])), "malformed stream: an event is not a JSON object"),
        (None, "timeout"),
        (_reply("200 OK", _sse([_TOKEN])), "stream ended without [DONE]"),
        (_reply("200 OK", _sse([_TOKEN, "[DONE]"])), "stream ended without a finish_reason"),
        (_reply("200 OK", _sse([_TOKEN]), length=4096), "disconnected: RemoteProtocolError"),
    ],
    ids=["connect", "http-status", "not-json", "error-event", "not-an-object", "timeout", "no-done", "no-finish-reason", "cut-off"],
)
def test_each_failed_stream_is_one_failed_request_in_the_journal_with_its_reason(tmp_path: Path, reply: bytes | str | None, reason: str) -> None:
    if reply == "closed port":
        out = stream(_closed_port_url(), timeout=5.0)
    else:
        url, server = _canned_server(reply)
        with server:
            out = stream(url, timeout=0.5 if reply is None else 5.0)
    writer = JournalWriter(tmp_path / "journal.jsonl")
    writer.add(request_record(out, run="r1-256-c1", repetition=1, input_nominal=256, concurrency=1, index=0, warmup=False, key="r1-256-c1/0", t0=0.0))
    writer.commit()
    lines = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["ok"] is False and record["error"].startswith(reason), record["error"]
    assert record["e2e_s"] is None  # a failed request never lends its time to the latency figures
