"""Stream one chat completion and time it on a monotonic clock.

The client reads raw bytes and splits server-sent events itself: one clock
reading per network read (events that arrived together share it), a read of
the stream's token events taken by their template (:mod:`.token_events`),
any other event parsed as JSON, nothing else per token. The send time is read when the
request's first byte goes to the socket (httpcore's trace), not when the request
was built, so time a request spends waiting inside the client (for a pooled
connection, or behind its siblings at high concurrency) is not charged to the
engine; it is recorded apart as ``send_wait_s``. Every failure - HTTP status,
timeout, disconnect, malformed stream - comes back as an :class:`Outcome` with
``error`` set, never as an exception.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from pydantic_core import from_json

from .connections import ArmClient
from .lane_http import LaneConnections
from .token_events import Template, learn

__all__ = ["Outcome", "stream_chat", "Clock"]

Clock = Callable[[], float]

# Finish reasons with which vLLM ends a stream it did not complete (``FinishReason.ABORT``,
# and ``ERROR`` on newer releases).
FAILED_FINISH = frozenset({"abort", "error"})

# Parsed token events a stream's template (:mod:`.token_events`) may be learned from: its first token event
# follows a role event or two, as a rule; an engine whose token events have none is tried no further.
LEARNING_LINES = 4

# Each URL parsed once (a run sends every request to one URL): httpx parses a string again for each request.
_URLS: dict[str, httpx.URL] = {}


def _url(url: str) -> httpx.URL:
    parsed = _URLS.get(url)
    if parsed is None:
        if len(_URLS) > 64:
            _URLS.clear()
        parsed = _URLS[url] = httpx.URL(url)
    return parsed


@dataclass
class Outcome:
    """What one streamed request did, times in clock seconds (absolute)."""

    t_send: float
    t_intent: float | None = None
    ok: bool = False
    error: str | None = None
    http_status: int | None = None
    t_headers: float | None = None
    t_first: float | None = None
    t_first_content: float | None = None
    t_last_token: float | None = None
    t_end: float | None = None
    token_times: list[float] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens; None where the engine gave none
    finish_reason: str | None = None
    content: list[str] = field(default_factory=list)
    tool_calls: dict[int, dict[str, str]] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The timing and usage fields of a journal ``request`` record."""

        def since(t: float | None) -> float | None:
            return None if t is None else round(max(t - self.t_send, 0.0), 6)

        gaps = [round((b - a) * 1e6) for a, b in zip(self.token_times, self.token_times[1:])]
        # Only where the engine reported it: absent is not zero (an engine without the detail cached nothing
        # that we know of), and journals of engines without it keep the records they always had.
        cached = {} if self.cached_tokens is None else {"cached_tokens": self.cached_tokens}
        return {
            "ok": self.ok,
            "error": self.error,
            "http_status": self.http_status,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            **cached,
            "e2e_s": since(self.t_end) if self.ok else None,
            "ttft_s": since(self.t_first),
            "ttft_content_s": since(self.t_first_content),
            "last_token_s": since(self.t_last_token),
            "headers_s": since(self.t_headers),
            "send_wait_s": None if self.t_intent is None else round(max(self.t_send - self.t_intent, 0.0), 6),
            "finish_reason": self.finish_reason,
            "token_events": len(self.token_times),
            "itl_us": gaps,
        }

    @property
    def text(self) -> str:
        return "".join(self.content)


class _BadUsage(ValueError):
    """A usage count no engine should send."""


def _count(value: Any, name: str) -> int | None:
    """A usage token count: a whole number at least 0, or absent; anything else makes the stream malformed."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _BadUsage(f"usage {name} is {json.dumps(value)[:40]}, not a whole number at least 0")
    return value


def _absorb(out: Outcome, event: dict[str, Any], now: float) -> None:
    usage = event.get("usage")
    if usage:
        out.prompt_tokens = _count(usage.get("prompt_tokens"), "prompt_tokens")
        out.completion_tokens = _count(usage.get("completion_tokens"), "completion_tokens")
        details = usage.get("completion_tokens_details") or {}
        out.reasoning_tokens = _count(details.get("reasoning_tokens", usage.get("reasoning_tokens")), "reasoning_tokens")
        out.cached_tokens = _count((usage.get("prompt_tokens_details") or {}).get("cached_tokens"), "cached_tokens")
    for choice in event.get("choices") or ():
        delta = choice.get("delta") or {}
        content = delta.get("content")
        # Current vLLM streams ``reasoning``; older releases and others ``reasoning_content``.
        reasoning = delta.get("reasoning") or delta.get("reasoning_content")
        calls = delta.get("tool_calls")
        if not isinstance(content or "", str) or not isinstance(reasoning or "", str):
            raise TypeError("delta text is not a string")
        if content or reasoning or calls:
            if out.t_first is None:
                out.t_first = now
            if (content or calls) and out.t_first_content is None:
                out.t_first_content = now
            out.t_last_token = now
            out.token_times.append(now)
        if content:
            out.content.append(content)
        for call in calls or ():
            slot = out.tool_calls.setdefault(call.get("index", 0), {"name": "", "arguments": ""})
            fn = call.get("function") or {}
            slot["name"] += fn.get("name") or ""
            slot["arguments"] += fn.get("arguments") or ""
        if choice.get("finish_reason"):
            out.finish_reason = choice["finish_reason"]


class _Events:
    """A reply's server-sent events as its bytes arrive: each complete ``data:`` payload absorbed into the
    outcome at the clock reading of the network read that completed it; :meth:`feed` is a lane connection's
    sink (:mod:`.lane_http`), or called per read of a pooled reply. A read of nothing but token events of the
    stream's template (:mod:`.token_events`, learned from its first parsed token event) is taken whole."""

    __slots__ = ("out", "rest", "done", "failure", "template", "learning")

    def __init__(self, out: Outcome):
        self.out = out
        self.rest = b""  # an unfinished line
        self.done = False  # [DONE] seen
        self.failure: str | None = None
        self.template: Template | None = None
        self.learning = LEARNING_LINES  # parsed events the template may still be learned from

    def feed(self, chunk: bytes, now: float) -> bool:
        """Absorb the events ``chunk`` completes; whether to read on (not after a malformed event)."""
        template = self.template
        if template is not None and not self.rest:
            texts = template.texts(chunk)
            if texts is not None:
                _absorb_texts(self.out, texts, now, template.content)
                return True
        lines = (self.rest + chunk if self.rest else chunk).split(b"\n")
        self.rest = lines.pop()  # an unfinished line (or b"")
        out = self.out
        # (An engine's read is one event or a few: a data line and a blank one each.)
        for line in lines:
            if line[:5] == b"data:":
                if template is not None and (text := template.text(line)) is not None:
                    _absorb_texts(out, [text], now, template.content)
                    continue
                payload = line[5:].strip()
                if payload == b"[DONE]":
                    self.done = True
                elif (failure := _event_failure(out, payload, now)) is not None:
                    self.failure = failure
                    return False
                elif template is None and self.learning:
                    self.learning -= 1
                    template = self.template = learn(line)
        return True


def _absorb_texts(out: Outcome, texts: list[str], now: float, content: bool) -> None:
    """Absorb token events of one template, each with its text, read at ``now``: as :func:`_absorb` does
    each of them (an empty text is no token)."""
    if "" in texts:
        texts = [text for text in texts if text]
        if not texts:
            return
    if out.t_first is None:
        out.t_first = now
    if content:
        if out.t_first_content is None:
            out.t_first_content = now
        out.content += texts
    out.t_last_token = now
    out.token_times += [now] * len(texts)


def _event_failure(out: Outcome, data: bytes, now: float) -> str | None:
    """Absorb one ``data:`` payload into ``out``; why the stream failed there, or ``None``."""
    try:
        # pydantic's JSON reader: the same objects json.loads makes (NaN, big integers, a repeated key's last
        # value), a ValueError where it refuses, and a third of its CPU per event (bench/collect_cpu.py).
        event = from_json(data)
    except ValueError:
        return f"malformed stream: not JSON: {data[:80].decode('utf-8', 'replace')!r}"
    if isinstance(event, dict) and "error" in event and not event.get("choices"):
        return f"error event: {json.dumps(event['error'])[:160]}"
    if not isinstance(event, dict):
        return "malformed stream: an event is not a JSON object"
    try:
        _absorb(out, event, now)
    except _BadUsage as err:
        return f"malformed stream: {err}"
    except (AttributeError, TypeError, ValueError):
        # Valid JSON of the wrong shape ("choices": [1], "usage": []...).
        return f"malformed stream: unexpected event shape: {data[:80].decode('utf-8', 'replace')!r}"
    return None


def _ending_failure(out: Outcome, done: bool) -> str | None:
    """Why a stream that closed without a fault still failed, or ``None`` for a success."""
    if not done:
        return "stream ended without [DONE]"
    if out.finish_reason is None:
        return "stream ended without a finish_reason"
    if out.finish_reason in FAILED_FINISH:
        # The engine gave up on the request (aborted it, or hit an error) yet closed the
        # stream politely: a truncated answer must not pass as a fast success.
        return f"engine finished the request with finish_reason {out.finish_reason!r}"
    return None


def _transport_failure(err: httpx.TransportError | TimeoutError, timeout: float) -> str:
    """The failure reason of a request the network or the request limit ended."""
    if isinstance(err, httpx.TimeoutException):
        return f"timeout ({type(err).__name__}) after {timeout:g}s limit"
    if isinstance(err, TimeoutError):
        return f"timeout (not finished within the {timeout:g}s limit)"
    if isinstance(err, (httpx.RemoteProtocolError, httpx.ReadError)):
        return f"disconnected: {type(err).__name__}: {err}"[:200]
    return f"transport: {type(err).__name__}: {err}"[:200]


async def _read_reply(response: httpx.Response, out: Outcome, clock: Clock) -> str | None:
    """Read the reply's status and events into ``out``; why the request failed, or ``None``."""
    out.t_headers = clock()
    out.http_status = response.status_code
    if response.status_code != 200:
        detail = (await response.aread())[:200].decode("utf-8", "replace").strip()
        return _status_failure(response.status_code, detail)
    events = _Events(out)
    async for chunk in response.aiter_raw():
        if not events.feed(chunk, clock()):
            return events.failure
    return _ending_failure(out, events.done)


def _status_failure(status: int, detail: str) -> str:
    return f"http {status}: {detail}" if detail else f"http {status}"


async def _on_pool(client: httpx.AsyncClient, request: httpx.Request, out: Outcome, clock: Clock) -> str | None:
    """Send ``request`` through the client's transport and read its reply; why it failed, or ``None``."""

    async def trace(event: str, info: dict[str, Any]) -> None:
        if event.endswith("send_request_headers.started"):
            out.t_send = clock()

    request.extensions["trace"] = trace
    response = await client.send(request, stream=True)
    try:
        failure = await _read_reply(response, out, clock)
        out.t_end = clock()  # the reply's end, before the connection is released
    finally:
        await response.aclose()
    return failure


async def _on_lane(lane: _Lane, out: Outcome, clock: Clock, connect_timeout: float) -> str | None:
    """Send the request on its lane's own connection, its events read as they arrive (no httpx request or
    response in between); why it failed, or ``None``."""
    client, connections, url, head, payload = lane
    key = (url.host, url.port or 80)
    connection = await connections.acquire(key, connect_timeout)
    try:
        events = _Events(out)
        out.t_send = clock()
        connection.send(None, head, payload, events.feed, clock)
        await connection.until_end()  # (or until a head that is not a 200 reply's)
        assert connection.head is not None
        status, _, headers = connection.head
        out.t_headers, out.http_status = connection.t_head, status
        if any(name.lower() == b"set-cookie" for name, _ in headers):  # as httpx's client keeps them
            client.cookies.extract_cookies(httpx.Response(status, headers=headers, request=client.build_request("POST", url)))
        if status != 200:
            detail = b""
            while (data := await connection.next_chunk(None)) is not None:
                detail += data
            return _status_failure(status, detail[:200].decode("utf-8", "replace").strip())
        out.t_end = connection.t_end  # the read that ended the reply
        return events.failure or _ending_failure(out, events.done)
    finally:
        connections.release(key, connection)


# A streamed request that takes its lane directly: the client, the lane's connections, the URL, the head, the body.
_Lane = tuple[ArmClient, LaneConnections, httpx.URL, bytes, bytes]


def _direct(client: httpx.AsyncClient, url: str, lane: int | None, headers: dict[str, str], payload: bytes) -> _Lane | None:
    """The lane a request may take directly (an arm client's, plain HTTP, no proxy), or ``None``: through httpx."""
    if lane is None or not isinstance(client, ArmClient):
        return None
    parsed = _url(url)
    connections = client.lanes.direct(lane, parsed)
    head = None if connections is None else client.post_head(url, headers, len(payload))
    if connections is None or head is None:
        return None
    return client, connections, parsed, head, payload


async def stream_chat(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    *,
    clock: Clock,
    timeout: float,
    lane: int | None = None,
    due: float | None = None,
    headers: dict[str, str] | None = None,
) -> Outcome:
    """POST ``body`` (with ``stream: true``) to ``url`` and time every event of the reply.

    ``lane`` picks the connection of one request slot of a run (see :mod:`.connections`);
    ``None``, or a client without that transport, uses the client's ordinary pool.
    ``due``: when an open-loop schedule had the request due (on ``clock``); its send wait is counted
    from then (the send lag), not from this call. ``headers``: sent with the request besides its content type
    (a multi-turn conversation's session header).
    """
    payload = json.dumps({**body, "stream": True, "stream_options": {"include_usage": True}}).encode()
    sent_headers = {**(headers or {}), "content-type": "application/json"}
    lane_path = _direct(client, url, lane, sent_headers, payload)
    request = None
    if lane_path is None:
        request = client.build_request(
            "POST", _url(url), content=payload, headers=sent_headers, timeout=httpx.Timeout(timeout, connect=min(timeout, 30.0))
        )
        if lane is not None:
            request.extensions["lane"] = lane
    out = Outcome(t_send=clock())
    out.t_intent = out.t_send if due is None else due
    failure: str | None
    try:
        # httpx's timeouts bound each read; the plan's limit is on the whole request, so a stream that trickles
        # past it is a failed request too. (On a lane taken directly it is the only bound past the connect: a
        # read's own limit, the same number of seconds, could never end a request sooner.)
        async with asyncio.timeout(timeout):
            if request is None:
                assert lane_path is not None
                failure = await _on_lane(lane_path, out, clock, min(timeout, 30.0))
            else:
                failure = await _on_pool(client, request, out, clock)
    except (httpx.TransportError, TimeoutError) as err:
        failure = _transport_failure(err, timeout)
    out.error, out.ok = failure, failure is None
    if out.t_end is None:
        out.t_end = clock()
    return out
