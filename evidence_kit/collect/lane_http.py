"""A lane's own HTTP/1.1 connection: the timed requests' bytes with nothing between them and the event loop.

Profiled in traffic (bench/collect_cpu.py), four fifths of the collector's CPU per streamed request
went to the layers between the socket and :func:`~.client.stream_chat`: every server-sent event
climbed five asynchronous generators, a per-read cancel scope and a pure-Python HTTP state machine.
A lane has one request in flight at a time on one keep-alive connection, to one plain-HTTP endpoint,
so it needs none of a general pool's machinery: :class:`LaneConnection` is an :class:`asyncio.Protocol`
that parses the reply's status line and headers once, undoes chunked (or ``Content-Length``, or
close-delimited) framing as bytes arrive, and hands each network read's body bytes to the one waiting
reader. The requests stay ``httpx`` requests and the replies ``httpx`` responses, so nothing above
the transport changes; HTTPS, a proxy, or a request body of unknown length take httpx's own pool.

Faults are httpx's exceptions, as httpcore would raise them: a refused or timed-out connect
(``ConnectError``, ``ConnectTimeout``), a connection closed before the reply ended
(``RemoteProtocolError``), a malformed status line, header or chunk (``RemoteProtocolError``), a
read that waited past the request's read timeout (``ReadTimeout``).
"""

from __future__ import annotations

import asyncio
import collections
import time
import typing
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

__all__ = ["LaneConnections", "LaneConnection", "fast_path", "READ_SIZE", "read_in_small_pieces"]

HEAD_LIMIT = 64 * 1024  # the most bytes a reply's status line and headers may take
PAUSE_AT = 1024 * 1024  # body bytes read ahead of the reader before the socket is paused
READ_SIZE = 64 * 1024  # the most bytes one read of a socket or pipe asks for (read_in_small_pieces)

_HEAD, _BODY, _DONE = 0, 1, 2
_SIZE, _DATA, _DATA_END, _TRAILER = 0, 1, 2, 3
_HEX = frozenset(b"0123456789abcdefABCDEF")
_SIZES: dict[bytes, int] = {}  # chunk size lines seen, and the sizes they give

# A streamed reply's reader: a network read's body bytes and the clock when they arrived; whether it wants more.
Sink = Callable[[bytes, float], bool]


def read_in_small_pieces(transport: asyncio.BaseTransport) -> None:
    """Have an asyncio socket or pipe transport read at most :data:`READ_SIZE` bytes at a time.

    Its default, 256 KiB, is allocated for every read and shrunk to what came. That is above glibc's mmap
    threshold (128 KiB, until the process frees a larger block): in a process that has not, each read of a
    300-byte event was an mmap and a munmap, 14.7 against 2.4 us a read on a socket pair, and most of a worker
    process's CPU per request (bench/collect_cpu.py). Transports without the attribute (uvloop's) are left as
    they are."""
    if isinstance(getattr(transport, "max_size", None), int):
        transport.max_size = READ_SIZE  # type: ignore[attr-defined]


def fast_path(request: httpx.Request, proxy: str | None) -> bool:
    """Whether a lane's request can go on its own connection: plain HTTP, no proxy, a body already in memory."""
    return (
        request.url.scheme == "http" and proxy is None and isinstance(request.stream, httpx.ByteStream) and "transfer-encoding" not in request.headers
    )


class LaneConnection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection, one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = b""  # bytes received and not yet parsed (a partial head, chunk size line or chunk)
        # Body bytes not yet read: one piece per network read, as the socket gave them (a reader clocks each).
        self.body: collections.deque[bytes] = collections.deque()
        self.pending = 0  # bytes in ``body``
        # A streamed reply's reader (:meth:`stream`): each network read's body bytes go to it as they arrive.
        self.sink: Sink | None = None
        self.clock: Callable[[], float] = time.monotonic
        self.t_head: float | None = None  # the clock at the read that completed the head (with a sink)
        self.t_end: float | None = None  # and at the read that ended the reply
        self.stopped = False  # the sink wanted no more
        self.streaming = False  # a 200 reply's chunked body going to the sink (data_received's fast path)
        self.state = _DONE
        self.error: Exception | None = None
        self.closed = False
        self.paused = False
        self.waiter: asyncio.Future[None] | None = None
        self.request: httpx.Request | None = None
        self.method = b"GET"
        self.head: tuple[int, bytes, list[tuple[bytes, bytes]]] | None = None
        self.framing = "close"
        self.remaining = 0
        self.chunk = _SIZE
        self.keep_alive = True
        self.idle_since = 0.0

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not asyncio.Transport subclasses; every event loop's socket transport writes.)
        self.transport = typing.cast(asyncio.Transport, transport)
        read_in_small_pieces(transport)

    def data_received(self, data: bytes) -> None:
        # With a sink, the clock is read once per network read, as the bytes come off the socket: before any
        # task runs, so a busy loop's queue of ready tasks is not counted into the engine's times.
        now = self.clock() if self.sink is not None else 0.0
        if self._streamed(data, now):
            return
        if self.state == _DONE or self.stopped:
            self.keep_alive = False  # bytes no request asked for: this connection is not to be reused
            return
        self.buffer = self.buffer + data if self.buffer else data
        had_head = self.head is not None
        try:
            pieces = self._parse()
        except httpx.RemoteProtocolError as err:
            self._fail(err)
            return
        if not had_head and self.head is not None:
            self._head_arrived(now)
        if self.state == _DONE:
            self.t_end, self.streaming = now, False
        self._hand_on(pieces, had_head, now)

    def _hand_on(self, pieces: list[bytes], had_head: bool, now: float) -> None:
        """Give a read's body bytes to the sink (or the queue), and wake the reader if it has something new."""
        took = bool(pieces) and self._feed(pieces[0] if len(pieces) == 1 else b"".join(pieces), now)
        # A streamed reply's reader waits only for its end (until_end): not woken by its head, nor by a read of part
        # of a chunk, nor by what the sink took.
        if self.state != _DONE and ((took and had_head) or (self.streaming and (took or not pieces))):
            return
        self._wake()

    def _head_arrived(self, now: float) -> None:
        assert self.head is not None
        self.t_head = now
        self.streaming = self.sink is not None and self.head[0] == 200 and self.framing == "chunked" and self.state == _BODY

    def _streamed(self, data: bytes, now: float) -> bool:
        """Hand a streamed reply's read to the sink in one step when it is whole chunks following whole chunks (each
        an engine's event, as a rule); whether it was."""
        if not self.streaming or self.buffer or self.chunk != _SIZE:
            return False
        pieces = _whole_chunks(data)
        if pieces is None:
            return False
        if not self.sink(pieces[0] if len(pieces) == 1 else b"".join(pieces), now):  # type: ignore[misc]
            self.stopped, self.streaming = True, False
            self._wake()
        return True

    def _feed(self, body: bytes, now: float) -> bool:
        """Hand a network read's body bytes to the sink (a 200 reply's); else queue them for :meth:`next_chunk`.
        Whether the sink took them and wants more."""
        if self.sink is not None and self.head is not None and self.head[0] == 200:
            if self.sink(body, now):
                return True
            self.stopped, self.streaming = True, False
            return False
        self.body.append(body)
        self.pending += len(body)
        if not self.paused and self.pending > PAUSE_AT and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        return False

    def eof_received(self) -> bool | None:
        return None  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.state == _BODY and self.framing == "close":
            self.state = _DONE
        elif self.state != _DONE:
            message = (
                "Server disconnected without sending a response."
                if self.state == _HEAD
                else "peer closed connection without sending complete message body"
            )
            self._fail(httpx.RemoteProtocolError(message, request=self.request))
        self._wake()

    # the reply, parsed as it arrives

    def _fail(self, err: Exception) -> None:
        if self.error is None:
            self.error = err
        self.keep_alive, self.streaming = False, False
        if self.transport is not None:
            self.transport.close()
        self._wake()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _parse(self) -> list[bytes]:
        """Parse what has arrived; the body bytes it held, undone from their framing."""
        pieces: list[bytes] = []
        if self.state == _HEAD:
            self._parse_head()
        if self.state == _BODY:
            if self.framing == "chunked":
                self._parse_chunks(pieces)
            elif self.framing == "length":
                self._take(self.remaining, pieces)
                if self.remaining == 0:
                    self.state = _DONE
            else:
                self._take(len(self.buffer), pieces)
        if self.state == _DONE and self.buffer:
            self.keep_alive = False
        return pieces

    def _take(self, most: int, pieces: list[bytes]) -> None:
        n = min(most, len(self.buffer))
        if n:
            pieces.append(self.buffer[:n])
            self.buffer = self.buffer[n:]
            self.remaining -= n

    def _parse_head(self) -> None:
        while self.state == _HEAD:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > HEAD_LIMIT:
                    raise httpx.RemoteProtocolError("reply headers too long", request=self.request)
                return
            lines = self.buffer[:end].split(b"\r\n")
            self.buffer = self.buffer[end + 4 :]
            status, reason, version = _status_line(lines[0], self.request)
            headers = [_header(line, self.request) for line in lines[1:]]
            if 100 <= status < 200:
                continue  # an interim reply (100 Continue): the real one follows
            self.head = (status, reason, headers)
            self._framing(status, version, headers)

    def _framing(self, status: int, version: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        names = {name.lower(): value for name, value in headers}
        connection = names.get(b"connection", b"").lower()
        self.keep_alive = version == b"HTTP/1.1" and b"close" not in connection
        coding = names.get(b"transfer-encoding", b"").lower()
        if self.method == b"HEAD" or status in (204, 304):
            self.state, self.remaining = _DONE, 0
        elif b"chunked" in coding:
            self.state, self.framing, self.chunk = _BODY, "chunked", _SIZE
        elif b"content-length" in names:
            length = names[b"content-length"].strip()
            if not length.isdigit():
                raise httpx.RemoteProtocolError(f"malformed Content-Length {length[:40]!r}", request=self.request)
            self.framing, self.remaining = "length", int(length)
            self.state = _BODY if self.remaining else _DONE
        else:
            self.state, self.framing, self.keep_alive = _BODY, "close", False

    def _parse_chunks(self, pieces: list[bytes]) -> None:
        # One pass over the buffer by offset, the state in locals: a network read of whole chunks (one SSE event
        # each, as engines send them) is cut into its data without copying the rest of the buffer after each.
        buf, pos, chunk, remaining = self.buffer, 0, self.chunk, self.remaining
        try:
            while True:
                if chunk == _DATA:
                    n = min(remaining, len(buf) - pos)
                    if n:
                        pieces.append(buf[pos : pos + n])
                        pos += n
                        remaining -= n
                    if remaining:
                        return
                    chunk = _DATA_END
                if chunk == _DATA_END:
                    if len(buf) - pos < 2:
                        return
                    if buf[pos : pos + 2] != b"\r\n":
                        raise httpx.RemoteProtocolError("malformed chunked body (no CRLF after a chunk)", request=self.request)
                    pos += 2
                    chunk = _SIZE
                end = buf.find(b"\r\n", pos)
                if end < 0:
                    if len(buf) - pos > HEAD_LIMIT:
                        raise httpx.RemoteProtocolError("malformed chunked body (a size line too long)", request=self.request)
                    return
                line, pos = buf[pos:end], end + 2
                if chunk == _TRAILER:
                    if not line:
                        self.state = _DONE
                        return
                    continue
                remaining = _SIZES.get(line) or _chunk_size(line, self.request)
                if not remaining:
                    chunk = _TRAILER
                    continue
                stop = pos + remaining
                if buf[stop : stop + 2] == b"\r\n":
                    # The whole chunk and its CRLF are here (an engine's event, as a rule): taken at once.
                    pieces.append(buf[pos:stop])
                    pos, remaining = stop + 2, 0
                else:
                    chunk = _DATA
        finally:
            self.buffer, self.chunk, self.remaining = buf[pos:], chunk, remaining

    # one request

    @property
    def reusable(self) -> bool:
        """Whether the connection can carry another request once this reply ends."""
        return not self.closed and self.keep_alive and self.error is None

    def send(
        self, request: httpx.Request | None, head: bytes, content: bytes, sink: Sink | None = None, clock: Callable[[], float] | None = None
    ) -> None:
        """Write the request and expect its reply: its head, then its body, as two writes (as httpcore writes
        them). A request whose body came in the same read as its head was answered with its stream held back
        and sent in one piece by the simulator's server (uvicorn, as vLLM's): every token timed at once.

        ``sink``: a 200 reply's body bytes are handed to it in :meth:`data_received`, each network read's with
        ``clock`` read as they arrived, instead of being queued for :meth:`next_chunk`; it answers whether it
        wants more. The reader then waits once, in :meth:`until_end`, not for the head nor once per read."""
        assert self.transport is not None
        self.request, self.head, self.state = request, None, _HEAD
        self.method = request.method.encode() if request is not None else head[: head.find(b" ")]
        self.body.clear()
        self.pending = 0
        self.sink, self.stopped, self.streaming, self.t_head, self.t_end = sink, False, False, None, None
        if clock is not None:
            self.clock = clock
        self.transport.write(head)
        if content:
            self.transport.write(content)

    async def wait(self, timeout: float | None) -> None:
        """Until the reply has something new (head, body bytes, its end, or a fault)."""
        loop = asyncio.get_running_loop()
        self.waiter = waiter = loop.create_future()
        timer = None if timeout is None else loop.call_later(timeout, self._timed_out, waiter)
        try:
            await waiter
        finally:
            self.waiter = None
            if timer is not None:
                timer.cancel()

    def _timed_out(self, waiter: asyncio.Future[None]) -> None:
        if not waiter.done():
            self._fail(httpx.ReadTimeout("timed out waiting for the engine's reply", request=self.request))

    async def head_of_reply(self, timeout: float | None) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        while self.head is None:
            if self.error is not None:
                raise self.error
            await self.wait(timeout)
        return self.head

    async def next_chunk(self, timeout: float | None) -> bytes | None:
        """The reply's next body bytes: what arrived since the last call (decoded from its framing), waiting
        for some if none did; ``None`` once it has ended."""
        while True:
            if self.body:
                data = self.body.popleft()
                self.pending -= len(data)
                if self.paused and self.transport is not None:
                    self.paused = False
                    self.transport.resume_reading()
                return data
            if self.error is not None:
                raise self.error
            if self.state == _DONE:
                return None
            await self.wait(timeout)

    async def until_end(self) -> None:
        """Until a streamed reply (:meth:`send` with a sink) has ended, its sink wanted no more, or its head came
        and is not a 200 reply's (whose body is queued for :meth:`next_chunk`)."""
        while self.state != _DONE and not self.stopped and (self.head is None or self.head[0] == 200):
            if self.error is not None:
                raise self.error
            await self.wait(None)
        if self.error is not None and not self.stopped:
            raise self.error

    def close(self) -> None:
        self.keep_alive = False
        if self.transport is not None:
            self.transport.close()


def _whole_chunks(data: bytes) -> list[bytes] | None:
    """The data of ``data``'s chunks when it is nothing but whole chunks, each of a size line seen before (in
    ``_SIZES``) and not empty (the last chunk); else ``None``, for the parser (which keeps state between reads).
    One chunk (most reads: an engine's event) is checked by its length; a burst of them by one split, its
    pieces alternating size line and data, each data's length checked (none holding a CRLF)."""
    line_end = data.find(b"\r\n")
    size = _SIZES.get(data[:line_end]) if line_end > 0 else None
    if size and len(data) == line_end + size + 4 and data.endswith(b"\r\n"):
        return [data[line_end + 2 : -2]]
    parts = data.split(b"\r\n")
    if not len(parts) % 2 or parts[-1]:
        return None
    pieces = parts[1::2]
    if b"" in pieces or list(map(len, pieces)) != list(map(_SIZES.get, parts[:-1:2])):
        return None
    return pieces


def _chunk_size(line: bytes, request: httpx.Request | None) -> int:
    """The size a chunk's size line gives (hexadecimal, before any ``;`` extension). An engine's events come
    in few sizes: each size line is read here once, and looked up in ``_SIZES`` after that."""
    size = line.split(b";", 1)[0].strip() if b";" in line else line.strip()
    if not size or not _HEX.issuperset(size):
        raise httpx.RemoteProtocolError(f"malformed chunk size {line[:40]!r}", request=request)
    value = int(size, 16)
    if len(line) <= 32 and len(_SIZES) < 4096:  # (bounded: a size line may carry a long extension)
        _SIZES[line] = value
    return value


def _status_line(line: bytes, request: httpx.Request | None) -> tuple[int, bytes, bytes]:
    parts = line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit() or len(parts[1]) != 3:
        raise httpx.RemoteProtocolError(f"malformed status line {line[:60]!r}", request=request)
    return int(parts[1]), parts[2] if len(parts) > 2 else b"", parts[0]


def _header(line: bytes, request: httpx.Request | None) -> tuple[bytes, bytes]:
    name, colon, value = line.partition(b":")
    if not colon or not name or name != name.strip():
        raise httpx.RemoteProtocolError(f"malformed header line {line[:60]!r}", request=request)
    return name, value.strip()


class _Body(httpx.AsyncByteStream):
    """A reply's body on a lane connection; closing it gives the connection back (or closes it, mid-reply)."""

    def __init__(self, owner: LaneConnections, key: tuple[str, int], connection: LaneConnection, timeout: float | None):
        self.owner, self.key, self.connection, self.timeout = owner, key, connection, timeout

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        # An iterator, not an async generator: no generator for the loop to track per reply.
        data = await self.connection.next_chunk(self.timeout)
        if data is None:
            raise StopAsyncIteration
        return data

    async def aclose(self) -> None:
        self.owner.release(self.key, self.connection)


class LaneConnections:
    """Each lane's idle keep-alive connections, per host and port."""

    def __init__(self, keepalive_expiry: float):
        self.keepalive_expiry = keepalive_expiry
        self.idle: dict[tuple[str, int], list[LaneConnection]] = {}
        self.busy: set[LaneConnection] = set()

    async def handle(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` on an idle connection of its host, or a new one; its reply, its body streaming."""
        timeouts: dict[str, Any] = request.extensions.get("timeout", {})
        url = request.url
        key = (url.host, url.port or 80)
        head = _request_head(request)
        connection = await self.acquire(key, timeouts.get("connect"), request)
        try:
            trace = request.extensions.get("trace")
            if trace is not None:
                await trace("http11.send_request_headers.started", {"request": request})
            connection.send(request, head, request.content)
            status, reason, headers = await connection.head_of_reply(timeouts.get("read"))
        except BaseException:
            self.busy.discard(connection)
            connection.close()
            raise
        stream = _Body(self, key, connection, timeouts.get("read"))
        return httpx.Response(status, headers=headers, stream=stream, extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason})

    async def acquire(self, key: tuple[str, int], timeout: float | None, request: httpx.Request | None = None) -> LaneConnection:
        """An idle connection to ``key`` (host, port), or a new one (within ``timeout`` seconds), now busy:
        :meth:`release` gives it back."""
        connection = await self._connection(key, request, timeout)
        self.busy.add(connection)
        return connection

    async def _connection(self, key: tuple[str, int], request: httpx.Request | None, timeout: float | None) -> LaneConnection:
        idle = self.idle.get(key, [])
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if connection.reusable and now - connection.idle_since < self.keepalive_expiry:
                return connection
            connection.close()
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                _, protocol = await loop.create_connection(LaneConnection, key[0], key[1])
        except TimeoutError:
            raise httpx.ConnectTimeout("timed out connecting to the engine", request=request) from None
        except OSError as err:
            raise httpx.ConnectError(str(err), request=request) from None
        return protocol

    def release(self, key: tuple[str, int], connection: LaneConnection) -> None:
        """A reply's body closed: its connection is idle again if the reply ended cleanly, else closed."""
        if connection not in self.busy:
            return
        self.busy.discard(connection)
        if connection.state == _DONE and connection.reusable:
            connection.idle_since = time.monotonic()
            connection.request, connection.sink = None, None
            self.idle.setdefault(key, []).append(connection)
        else:
            connection.close()

    def close(self) -> None:
        for connections in self.idle.values():
            for connection in connections:
                connection.close()
        for connection in self.busy:
            connection.close()
        self.idle.clear()
        self.busy.clear()


def _request_head(request: httpx.Request) -> bytes:
    """The request's head as it goes on the wire: its request line and httpx's headers (Host first)."""
    lines = [request.method.encode() + b" " + request.url.raw_path + b" HTTP/1.1"]
    lines += [name + b": " + value for name, value in request.headers.raw]
    return b"\r\n".join(lines) + b"\r\n\r\n"
