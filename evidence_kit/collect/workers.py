"""Worker processes: the timed requests of a run streamed by N processes, the journal written by one.

One Python process streams a few thousand tokens a second per core before its event loop
falls behind, and a client that falls behind inflates every latency it records. With
``[workload] workers = N`` (N > 1) the collector starts N worker processes
(:mod:`.worker_process`) once per arm, before its first timed run, and ends them when
the arm ends, however it ends. A run's concurrency is split by slot: slot ``s`` belongs
to worker ``s mod N`` and sends on that worker's lane ``s`` (its own keep-alive
connection). The slots pull the next request index from one queue the collector holds,
exactly as :func:`~.runs.send_all` does in one process, so the run stays a closed loop:
at most C requests in flight, the next sent when any one ends, whichever worker serves
it. Fixed shares (worker w sends indices w, w+N, ...) would leave a fast worker idle
while a slow one still has a backlog: fewer than C in flight, a different load. A worker whose
calls are slow (a Ray actor) is handed each lane's next index one request ahead
(:attr:`Handle.depth`), and sends it when the lane's current request ends: still one
request in flight per lane.

Records come back with the index they were handed and are merged in index order, so the
journal is the one a single process writes. Only durations cross from a worker: its
``t_send_s`` counts from its *anchor*, its own clock when it answered the run's ``begin``,
and the pool places that anchor on the arm's clock (:meth:`_Handle.place`): exactly, for a
worker on the collector's machine (one ``CLOCK_MONOTONIC``, checked), else at the middle of
the ``begin`` round trip, within half of it, which the worker's ``client.processes`` entry
records as ``t_send_bound_s``. A fresh anchor each run keeps two machines' clock rates
from drifting apart over an arm. Every wait on a worker is bounded (the
request's own limit plus a margin, or :data:`CONTROL_TIMEOUT_S`), and a worker that exits
mid-run fails the run with :class:`WorkerFailed`, naming it, its exit status and its last
words on stderr; nothing of that run is journalled, so ``collect --resume`` redoes it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import math
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ..errors import EXIT_FAILED, EvidenceError
from .arrivals import send_open
from .client import Outcome
from .lane_http import read_in_small_pieces
from .worker_process import PROTOCOL_LIMIT

__all__ = ["WorkerFailed", "WorkerPool", "worker_pool", "Handle", "CONTROL_TIMEOUT_S", "REPLY_MARGIN_S", "PROTOCOL_LIMIT"]

# How long a worker may take to answer anything but a request: start-up, hello, open, end.
CONTROL_TIMEOUT_S = 30.0
# A request's reply may come this much later than its own limit (the worker ends it at the limit).
REPLY_MARGIN_S = 30.0
# How long a worker whose stdin was closed may take to exit before it is killed.
EXIT_GRACE_S = 5.0
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)


# The fields of a request's timing record as every worker writes it (Outcome.record) and what each may hold:
# a reply of another shape is no measurement (a journal shape of its own, a field no private-value rule knows).
_RECORD_FIELDS = frozenset(Outcome(t_send=0.0).record())
_AFTER_SEND = ("e2e_s", "ttft_s", "ttft_content_s", "last_token_s", "headers_s")  # durations from the send
_DURATIONS = (*_AFTER_SEND, "send_wait_s")
_COUNTS = ("http_status", "prompt_tokens", "completion_tokens", "reasoning_tokens", "token_events")


def _number(value: Any, *, whole: bool = False) -> bool:
    """A duration (or with ``whole``, a count): a finite number, not a bool, never below 0."""
    if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
        return False
    return math.isfinite(value) and value >= 0


def _gaps(gaps: Any) -> bool:
    """Whether ``itl_us`` is a list of whole numbers at least 0 (``type is int``: not a bool), checked in one pass:
    a record has one a token."""
    return isinstance(gaps, list) and all(type(gap) is int for gap in gaps) and (not gaps or min(gaps) >= 0)


def _unlike_a_record(record: dict[str, Any]) -> str | None:
    """What makes a worker's timing record (``t_send_s`` aside) unlike every one a worker writes, or ``None``."""
    fields = set(record) - {"t_send_s", "cached_tokens"}  # cached_tokens only where the engine reported it
    if "cached_tokens" in record and not _number(record["cached_tokens"], whole=True):
        return f"cached_tokens {record['cached_tokens']!r}"
    if fields != _RECORD_FIELDS:
        odd = sorted(fields ^ _RECORD_FIELDS)[:3]
        return f"fields {odd} missing or unknown"
    if not isinstance(record["ok"], bool):
        return f"ok {record['ok']!r}"
    for name in _DURATIONS:
        if record[name] is not None and not _number(record[name]):
            return f"{name} {record[name]!r}"
    for name in _COUNTS:
        if record[name] is not None and not _number(record[name], whole=True):
            return f"{name} {record[name]!r}"
    if not _gaps(record["itl_us"]):
        return "itl_us"
    for name in ("error", "finish_reason"):
        if record[name] is not None and not isinstance(record[name], str):
            return f"{name} {record[name]!r}"
    return None


class WorkerFailed(EvidenceError):
    """A worker process died or stopped answering: the run it was in is not recorded (exit 1)."""

    exit_code = EXIT_FAILED


class Handle:
    """The collector's end of one worker (a process here, a Ray actor): what a :class:`WorkerPool` needs of it."""

    number: int
    same_machine: bool = True  # reads the collector's monotonic clock
    placement: float = 0.0  # the worker's anchor on the arm's clock (seconds since its start)
    bound: float = 0.0  # how far ``placement`` may be from the truth
    # Requests handed to each of its lanes at once: the one in flight and those queued behind it in the
    # worker, which sends each when the one before it on the lane ends (more than 1 hides a call's latency).
    depth: int = 1

    async def ask(self, message: dict[str, Any], reply: Any, timeout: float) -> dict[str, Any]:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def kill(self) -> None:
        raise NotImplementedError

    def where(self) -> dict[str, Any]:
        """Fields the worker's ``client.processes`` entry adds about where it ran."""
        return {}

    def private(self) -> dict[str, Any] | None:
        """What identifies the machine it ran on (the run record's ``private``), or ``None``."""
        return None

    def check_clock(self, before: float, clock: Any, after: float) -> None:
        """A worker on the collector's machine reads its monotonic clock: ``clock`` lies between its readings."""
        if self.same_machine and not (isinstance(clock, float) and before <= clock <= after):
            # Not this machine's CLOCK_MONOTONIC: its send times could not be placed on the arm's clock exactly.
            raise WorkerFailed(
                f"worker {self.number}'s monotonic clock read {clock!r} outside the "
                f"collector's {before!r}..{after!r}: its times cannot be placed on the arm's clock"
            )

    def place(self, before: float, anchor: Any, after: float, t0: float) -> None:
        """Place the anchor the worker answered ``begin`` with (its clock then) on the arm's clock."""
        self.check_clock(before, anchor, after)
        if self.same_machine:
            self.placement, self.bound = anchor - t0, 0.0
        else:  # another machine's clock: the anchor fell somewhere inside the round trip
            self.placement, self.bound = (before + after) / 2 - t0, (after - before) / 2

    def arm_time(self, since_anchor: Any) -> float:
        """A ``t_send_s`` the worker measured from its anchor, as seconds since the arm's start."""
        if not _number(since_anchor):
            raise WorkerFailed(f"worker {self.number} sent a malformed reply (t_send_s {since_anchor!r})")
        return round(self.placement + float(since_anchor), 6)


class _Worker(Handle):
    """The collector's end of one worker process."""

    def __init__(self, number: int, process: asyncio.subprocess.Process):
        self.number, self.process = number, process
        pipes = getattr(process, "_transport", None)  # (asyncio's Process keeps its SubprocessTransport there)
        if isinstance(pipes, asyncio.SubprocessTransport):
            for fd in (1, 2):
                if (pipe := pipes.get_pipe_transport(fd)) is not None:
                    read_in_small_pieces(pipe)
        self.replies: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self.stderr: collections.deque[str] = collections.deque(maxlen=5)
        self.reader = asyncio.get_running_loop().create_task(self._read())
        self.drain = asyncio.get_running_loop().create_task(self._drain())
        self.gone: str | None = None

    async def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            while line := await self.process.stdout.readline():
                message = json.loads(line)
                if not isinstance(message, dict):
                    raise TypeError("a reply is not a JSON object")
                if message["op"] == "done":
                    index, record = message["index"], message["record"]
                    # A request's reply is its timing fields: an object, with no say in where it goes.
                    if isinstance(index, bool) or not isinstance(index, int) or not isinstance(record, dict):
                        raise TypeError("a 'done' reply without an index and a record object")
                    key: Any = index
                else:
                    key = message["op"]
                future = self.replies.pop(key, None)
                if future is not None and not future.done():
                    future.set_result(message)
        except (ValueError, KeyError, TypeError, asyncio.LimitOverrunError) as err:
            self.gone = f"sent a malformed reply ({type(err).__name__}: {str(err)[:80]})"
        finally:
            await self._died()

    async def _drain(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    async def _died(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 2.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.drain, 1.0)  # its last words, if it said any
        if self.gone is None:
            code = self.process.returncode
            self.gone = "exited" if code is None else f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        error = self.failure()
        for future in self.replies.values():
            if not future.done():
                future.set_exception(error)
        self.replies.clear()

    def failure(self) -> WorkerFailed:
        said = f"; its stderr ended: {' | '.join(self.stderr)}" if self.stderr else ""
        return WorkerFailed(f"worker {self.number} (pid {self.process.pid}) {self.gone or 'stopped answering'}{said}")

    async def ask(self, message: dict[str, Any], reply: Any, timeout: float) -> dict[str, Any]:
        """Send ``message`` and wait (at most ``timeout`` seconds) for the reply keyed ``reply``."""
        if self.gone is not None:
            raise self.failure()
        future = self.replies[reply] = asyncio.get_running_loop().create_future()
        self.tell(message)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self.replies.pop(reply, None)
            self.gone = self.gone or f"did not answer {message['op']!r} within {timeout:g}s"
            raise self.failure() from None

    def tell(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        if self.gone is not None:
            raise self.failure()
        self.process.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    async def close(self) -> None:
        """Close its stdin (it exits), wait a bounded time, then kill it."""
        if self.process.returncode is None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), EXIT_GRACE_S)
            except TimeoutError:
                self.process.kill()
                await asyncio.wait_for(self.process.wait(), EXIT_GRACE_S)
        for task in (self.reader, self.drain):
            task.cancel()
        await asyncio.gather(self.reader, self.drain, return_exceptions=True)

    def kill(self) -> None:
        """End it at once (the collector's own loop is going away)."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()


class WorkerPool:
    """N started workers, and the calls of one run on them."""

    def __init__(self, workers: list[Handle], t0: float = 0.0):
        self.workers, self.t0 = workers, t0

    def _worker_of(self, slot: int) -> Handle:
        return self.workers[slot % len(self.workers)]

    async def open_connections(self, base_url: str, lanes: int) -> int:
        """Open every slot's connection in its worker (as :func:`~.connections.open_connections`); how many answered."""
        shares = [[s for s in range(lanes) if s % len(self.workers) == w.number] for w in self.workers]
        opened = await asyncio.gather(
            *(w.ask({"op": "open", "base_url": base_url, "lanes": share}, "opened", CONTROL_TIMEOUT_S) for w, share in zip(self.workers, shares))
        )
        for worker, share, reply in zip(self.workers, shares, opened):
            answered = reply.get("answered")
            if isinstance(answered, bool) or not isinstance(answered, int) or not 0 <= answered <= len(share):
                raise WorkerFailed(
                    f"worker {worker.number} sent a malformed reply (answered {answered!r} of the {len(share)} connection(s) it was asked to open)"
                )
        return sum(reply["answered"] for reply in opened)

    async def begin(self) -> None:
        """Start every worker's health sampling for the run, and place its anchor on the arm's clock."""

        async def begin(worker: Handle) -> None:
            before = time.monotonic()
            reply = await worker.ask({"op": "begin"}, "began", CONTROL_TIMEOUT_S)
            worker.place(before, reply.get("clock"), time.monotonic(), self.t0)

        await asyncio.gather(*(begin(worker) for worker in self.workers))

    async def end(self) -> list[dict[str, Any]]:
        """Stop every worker's health sampling: their entries of the run record's ``client.processes``."""
        replies = await asyncio.gather(*(w.ask({"op": "end"}, "health", CONTROL_TIMEOUT_S) for w in self.workers))
        for worker, reply in zip(self.workers, replies):
            if not isinstance(reply.get("process"), dict):
                raise WorkerFailed(f"worker {worker.number} sent a malformed reply (no health for the run)")
        return [{**reply["process"], "t_send_bound_s": round(w.bound, 6), **w.where()} for w, reply in zip(self.workers, replies)]

    def private(self) -> dict[str, Any] | None:
        """The machines the workers ran on, for the run record's ``private`` (``None`` for this machine's processes)."""
        nodes = [p for p in (w.private() for w in self.workers) if p is not None]
        unique = [node for i, node in enumerate(nodes) if node not in nodes[:i]]
        return {"ray_nodes": unique} if unique else None

    async def send_all(self, url: str, bodies: list[dict[str, Any]], *, concurrency: int, timeout: float) -> list[dict[str, Any]]:
        """:func:`~.runs.send_all` across the workers: each body's timing fields (``t_send_s`` and
        ``Outcome.record()``), in body order."""
        records: list[dict[str, Any] | None] = [None] * len(bodies)
        queue = iter(range(len(bodies)))

        async def slot(lane: int) -> None:
            worker = self._worker_of(lane)
            for index in queue:  # one queue for every slot of every worker: the closed loop of one process
                message = {"op": "send", "index": index, "lane": lane, "url": url, "body": bodies[index], "timeout": timeout}
                record = (await worker.ask(message, index, timeout + REPLY_MARGIN_S)).get("record")
                records[index] = self._placed(worker, index, record)

        try:
            async with asyncio.TaskGroup() as group:
                for lane in range(min(concurrency, len(bodies))):
                    for _ in range(self._worker_of(lane).depth):
                        group.create_task(slot(lane))
        except* WorkerFailed as failed:
            raise failed.exceptions[0] from None
        return self._complete(records)

    async def send_turn(
        self, url: str, lane: int, index: int, body: dict[str, Any], headers: dict[str, str], *, timeout: float
    ) -> tuple[dict[str, Any], str]:
        """One turn of a conversation (:mod:`.conversations`), sent by the worker of ``lane`` on it: its timing
        fields, placed as :meth:`send_all`'s, and the streamed answer's text, which the collector puts in the
        conversation's next turn (the conversation lives here, not in the worker)."""
        worker = self._worker_of(lane)
        message = {"op": "send", "index": index, "lane": lane, "url": url, "body": body, "timeout": timeout, "headers": headers, "answer": True}
        reply = await worker.ask(message, index, timeout + REPLY_MARGIN_S)
        answer = reply.get("answer")
        if not isinstance(answer, str):
            raise WorkerFailed(f"worker {worker.number} sent a malformed reply (request {index}: no answer text)")
        return self._placed(worker, index, reply.get("record")), answer

    async def send_scheduled(
        self, url: str, bodies: list[dict[str, Any]], offsets: list[float], *, start: float, timeout: float, max_in_flight: int | None = None
    ) -> list[dict[str, Any]]:
        """:func:`~.runs.send_scheduled` across the workers (open loop): the collector keeps the schedule and
        hands each request, at its due time, to the worker of the lane it takes (lane ``l`` lives in worker
        ``l mod N``); the worker counts its send lag from the due time, given as a duration from its anchor
        (placed on the arm's clock like its send times: exactly on this machine), so the hand-over's own delay
        is in it. Timing fields in body order."""
        records: list[dict[str, Any] | None] = [None] * len(bodies)

        async def send(index: int, lane: int, due: float) -> None:
            worker = self._worker_of(lane)
            message = {
                "op": "send",
                "index": index,
                "lane": lane,
                "url": url,
                "body": bodies[index],
                "timeout": timeout,
                "due": due - self.t0 - worker.placement,
            }
            record = (await worker.ask(message, index, timeout + REPLY_MARGIN_S)).get("record")
            records[index] = self._placed(worker, index, record)

        try:
            await send_open(offsets, start, send, clock=time.monotonic, max_in_flight=max_in_flight)
        except* WorkerFailed as failed:
            raise failed.exceptions[0] from None
        return self._complete(records)

    def _placed(self, worker: Handle, index: int, record: Any) -> dict[str, Any]:
        """A worker's record of request ``index`` with its send time placed on the arm's clock, once it is
        checked to be the shape and the clock of a measurement."""
        if not isinstance(record, dict):
            raise WorkerFailed(f"worker {worker.number} sent a malformed reply (no record for request {index})")
        unlike = _unlike_a_record(record)
        if unlike is not None:
            raise WorkerFailed(f"worker {worker.number} sent a malformed reply (request {index}: {unlike})")
        placed = worker.arm_time(record.get("t_send_s"))
        # Its durations, from the send time it says, end before its reply came: a send time or a duration
        # that lies ends later. Allowed: the rounding to microseconds, and on another machine the anchor's
        # bound and how far two clocks' rates may differ since it (NTP keeps them within 500 ppm).
        # (send_wait_s is the wait before the send, not a time after it: it ends nothing.)
        ended = placed + max((record[name] for name in _AFTER_SEND if record[name] is not None), default=0.0)
        now = time.monotonic() - self.t0
        if ended > now + 1e-5 + (0.0 if worker.same_machine else worker.bound + 1e-3 * max(now, 0.0)):
            raise WorkerFailed(
                f"worker {worker.number} sent a malformed reply (request {index} sent at "
                f"{placed:g}s and ended at {ended:g}s of the arm, after its reply came)"
            )
        return {**record, "t_send_s": placed}

    def _complete(self, records: list[dict[str, Any] | None]) -> list[dict[str, Any]]:
        missing = [index for index, record in enumerate(records) if record is None]
        if missing:  # never fewer records than bodies: measure_run numbers them by position
            raise WorkerFailed(f"the workers returned no record for request(s) {missing[:5]} of {len(records)}")
        return [r for r in records if r is not None]


async def _spawn(number: int) -> _Worker:
    env = dict(os.environ)
    # The worker imports this very package, wherever it was imported from (a worktree, a venv).
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "evidence_kit.collect.worker_process",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        limit=PROTOCOL_LIMIT,
    )
    return _Worker(number, process)


async def hello(worker: Handle) -> dict[str, Any]:
    """The worker's first answer; one on the collector's machine must read its monotonic clock."""
    before = time.monotonic()
    reply = await worker.ask({"op": "hello"}, "clock", CONTROL_TIMEOUT_S)
    worker.check_clock(before, reply.get("clock"), time.monotonic())
    return reply


@contextlib.asynccontextmanager
async def worker_pool(count: int, t0: float) -> AsyncIterator[WorkerPool]:
    """``count`` worker processes for one arm, their send times placed relative to ``t0`` (the arm's start on
    this machine's monotonic clock); all of them ended when the block ends, on an error or a cancellation too."""
    started: list[_Worker] = []
    try:
        for number in range(count):
            started.append(await _spawn(number))
        await asyncio.gather(*(hello(worker) for worker in started))
        yield WorkerPool(list(started), t0)
    finally:
        try:
            await asyncio.gather(*(w.close() for w in started))
        finally:
            for worker in started:  # cancelled while closing: no worker outlives the collector's loop
                worker.kill()
