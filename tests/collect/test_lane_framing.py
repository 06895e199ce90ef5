"""A lane connection undoes chunked framing and cuts server-sent events however the network splits the bytes.

The parser takes a whole chunk at once when it is all there, and remembers the sizes its size lines gave; a
reply cut into reads at any points (mid size line, mid event, between a chunk and its CRLF), with any chunk
sizes, hexadecimal in either case and chunk extensions, must give the same events, each timed by the read that
completed its line, and a chunk not followed by its CRLF must fail the reply wherever the cut falls.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.collect.client import Outcome, _Events
from evidence_kit.collect.lane_http import LaneConnection

HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


class _Transport:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def _events(texts: list[str]) -> bytes:
    lines = [json.dumps({"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]}) for t in texts]
    lines.append(json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}))
    return "".join(f"data: {line}\n\n" for line in lines).encode() + b"data: [DONE]\n\n"


def _chunked(body: bytes, cuts: list[int], upper: bool, extension: bool) -> tuple[bytes, list[int]]:
    """``body`` in chunks ending at ``cuts``; and for each body byte, where it lands in the chunked bytes."""
    out, where, start = bytearray(), [], 0
    for end in [*sorted(set(c for c in cuts if 0 < c < len(body))), len(body)]:
        size = f"{end - start:X}" if upper else f"{end - start:x}"
        out += size.encode() + (b";ext=1" if extension else b"") + b"\r\n"
        where += range(len(out), len(out) + end - start)
        out += body[start:end] + b"\r\n"
        start = end
    out += b"0\r\n\r\n"
    return bytes(out), where


def _feed(raw: bytes, reads: list[int]) -> tuple[LaneConnection, _Events, list[tuple[int, int]]]:
    """Feed ``raw`` in pieces ending at ``reads``; the connection, its events and each read's (start, end)."""
    ticks = iter(range(10_000))
    connection, events = LaneConnection(), _Events(Outcome(t_send=0.0))
    connection.connection_made(_Transport())  # type: ignore[arg-type]
    connection.send(None, b"POST / HTTP/1.1\r\n\r\n", b"", events.feed, lambda: float(next(ticks)))
    spans, start = [], 0
    for end in [*sorted(set(r for r in reads if 0 < r < len(raw))), len(raw)]:
        spans.append((start, end))
        connection.data_received(raw[start:end])
        start = end
    return connection, events, spans


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=8),
    cuts=st.lists(st.integers(0, 2000), max_size=12),
    reads=st.lists(st.integers(0, 3000), max_size=20),
    upper=st.booleans(),
    extension=st.booleans(),
)
def test_events_and_their_times_do_not_depend_on_where_the_bytes_were_cut(
    texts: list[str], cuts: list[int], reads: list[int], upper: bool, extension: bool
) -> None:
    body = _events(texts)
    chunked, where = _chunked(body, cuts, upper, extension)
    raw = HEAD + chunked
    connection, events, spans = _feed(raw, reads)
    out: Any = events.out
    assert connection.error is None and connection.reusable
    assert events.done and out.finish_reason == "length" and out.text == "".join(texts)
    # Each content event is timed by the read that brought the newline ending its data line.
    ends = [i for i in range(len(body)) if body[i : i + 1] == b"\n" and body.rfind(b"data: ", 0, i) > body.rfind(b"\n", 0, i)]
    expected = [next(n for n, (a, b) in enumerate(spans) if a <= len(HEAD) + where[end] < b) for end in ends[: len(texts)]]
    assert out.token_times == [float(t) for t in expected]


@settings(max_examples=200, deadline=None)
@given(reads=st.lists(st.integers(0, 200), max_size=10), bad=st.sampled_from([b"XY", b"\n\n", b"\r\r", b"ab"]))
def test_a_chunk_not_followed_by_its_crlf_fails_the_reply_wherever_the_bytes_were_cut(reads: list[int], bad: bytes) -> None:
    data = b"data: {}\n\n"
    raw = HEAD + f"{len(data):x}".encode() + b"\r\n" + data + bad + b"0\r\n\r\n"
    connection, events, _ = _feed(raw, reads)
    assert isinstance(connection.error, httpx.RemoteProtocolError) and not connection.reusable


def test_a_chunk_size_line_that_is_not_hexadecimal_fails_the_reply_even_after_good_ones() -> None:
    data = b"data: {}\n\n"
    good = f"{len(data):x}".encode() + b"\r\n" + data + b"\r\n"
    for size in (b"0x" + f"{len(data):x}".encode(), b"1_0", b"-a", b"g"):
        connection, _, _ = _feed(HEAD + good + good + size + b"\r\n" + data + b"\r\n0\r\n\r\n", [])
        assert isinstance(connection.error, httpx.RemoteProtocolError), size


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 2000), max_size=12),
    per_read=st.integers(1, 5),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_reads_of_whole_chunks_give_what_reads_cut_anywhere_give(texts: list[str], cuts: list[int], per_read: int, newline: str) -> None:
    # Reads of whole chunks take the one-step path, whose chunks' data must be cut by their sizes, not at a CRLF
    # inside them (SSE lines may end with one, and a chunk may end anywhere in an event).
    body = _events(texts).replace(b"\n", newline.encode())
    bounds = [0, *sorted(set(c for c in cuts if 0 < c < len(body))), len(body)]
    chunks = [f"{b - a:x}\r\n".encode() + body[a:b] + b"\r\n" for a, b in zip(bounds, bounds[1:])]
    raw = HEAD + b"".join(chunks) + b"0\r\n\r\n"
    ends = [len(HEAD) + sum(len(c) for c in chunks[:i]) for i in range(0, len(chunks) + 1, per_read)]
    whole, cut = _feed(raw, ends)[1], _feed(raw, list(range(len(raw))))[1]
    assert whole.done and whole.failure is None and whole.out.text == cut.out.text == "".join(texts)
    assert len(whole.out.token_times) == len(cut.out.token_times) == len(texts)


def test_bytes_after_the_last_chunk_reach_no_event_and_end_the_connection() -> None:
    data = b'data: {"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": null}]}\n\n'
    chunk = f"{len(data):x}".encode() + b"\r\n" + data + b"\r\n"
    connection, events, _ = _feed(HEAD + chunk, [len(HEAD)])
    connection.data_received(chunk + b"0\r\n\r\n")  # the reply ends here
    connection.data_received(chunk)  # whole chunks of a size seen before, after the end
    assert events.out.text == "xx" and not connection.reusable
