"""One worker of the collector: it streams the requests it is handed and returns their raw records.

Started by :class:`~.workers.WorkerPool` as ``python -m evidence_kit.collect.worker_process``
and spoken to in JSON lines: commands on stdin, replies on stdout (the process's own
stdout is pointed at stderr first, so nothing else can reach the protocol). The same
:class:`WorkerCore` answers the same commands as a Ray actor (:mod:`.ray_workers`). A
worker writes no file and keeps no state between runs beyond its connections; the
collector writes the journal.

Only durations cross from a worker to the collector: a request's record is timed on the
worker's own monotonic clock, as durations from the request's send (``Outcome.record``)
and ``t_send_s``, its send time less the worker's *anchor*, the moment it answered the
run's ``begin``. The collector places the anchor on the arm's clock (:mod:`.workers`), so
a worker on another machine, whose monotonic clock has another origin, never has its
clock read as the collector's.

Commands (``op``): ``hello`` -> ``clock`` (``clock``, ``pid``); ``open`` (``base_url``,
``lanes``) -> ``opened`` (``answered``); ``begin`` (the run's health sampling starts, the
anchor is set) -> ``began`` (``clock``); ``send`` (``index``, ``lane``, ``url``, ``body``,
``timeout``, and for an open-loop request ``due``, when it was due, in seconds from this
worker's anchor; for a conversation's turn ``headers``, sent with it, and ``answer`` true) -> ``done``
(``index``, ``record``, and with ``answer`` the streamed content's text, which the collector puts in the
conversation's next turn); ``end`` -> ``health`` (``process``: this
worker's entry of the run record's ``client.processes``). End of stdin ends the worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from typing import IO, Any

from .client import stream_chat
from .connections import arm_client, open_connections
from .health import HealthMonitor
from .lane_http import read_in_small_pieces

__all__ = ["WorkerCore", "main", "PROTOCOL_LIMIT"]

# Longest line either side reads: a request body with a 128K-token prompt is about 600 KB. (Here, not in
# .workers, so that a worker imports only what streams: the client, its connections and the health sampler.)
PROTOCOL_LIMIT = 64 * 1024 * 1024


class WorkerCore:
    """The commands of one worker, whatever carries them (a pipe, a Ray actor's method calls)."""

    def __init__(self) -> None:
        self.client = arm_client(600.0)
        self.anchor = time.monotonic()
        self.health: HealthMonitor | None = None
        # One request at a time per lane: a collector that hands a lane its next request before the current
        # one ends (a Ray actor's, to hide the call's latency) still has at most one in flight on it.
        self.lanes: dict[int, asyncio.Lock] = {}

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """The reply to one command."""
        op = message["op"]
        if op == "hello":
            return {"op": "clock", "clock": time.monotonic(), "pid": os.getpid()}
        if op == "open":
            answered = await open_connections(self.client, message["base_url"], [int(lane) for lane in message["lanes"]])
            return {"op": "opened", "answered": answered}
        if op == "begin":
            self.health = HealthMonitor(time.monotonic)
            self.health.start()
            self.anchor = time.monotonic()
            return {"op": "began", "clock": self.anchor}
        if op == "send":
            lane = int(message["lane"])
            due = message.get("due")  # an open-loop request's due time, from the anchor: its send lag counts from it
            async with self.lanes.setdefault(lane, asyncio.Lock()):  # due when the lane's previous request ends
                outcome = await stream_chat(
                    self.client,
                    message["url"],
                    message["body"],
                    clock=time.monotonic,
                    timeout=float(message["timeout"]),
                    lane=lane,
                    due=None if due is None else self.anchor + float(due),
                    headers=message.get("headers"),
                )
            # The collector's own timing fields, but t_send_s counts from this worker's anchor, unrounded:
            # the collector adds the anchor's place on the arm's clock and rounds once.
            done = {"op": "done", "index": message["index"], "record": {"t_send_s": outcome.t_send - self.anchor, **outcome.record()}}
            if message.get("answer"):  # a conversation's turn: its next turn re-sends the answer's text
                done["answer"] = outcome.text
            return done
        if op == "end":
            health = await self.health.stop() if self.health is not None else None
            self.health = None
            return {"op": "health", "process": health["processes"][0] if health else None}
        raise ValueError(f"unknown command {op!r}")

    async def close(self) -> None:
        await self.client.aclose()


async def _serve(out: IO[bytes]) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=PROTOCOL_LIMIT)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    read_in_small_pieces(transport)
    core = WorkerCore()
    sending: set[asyncio.Task[None]] = set()

    def reply(message: dict[str, Any]) -> None:
        # One write of one line per reply; the pipe's reader is the collector's event loop.
        out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        out.flush()

    async def send(message: dict[str, Any]) -> None:
        reply(await core.answer(message))

    try:
        while line := await reader.readline():
            message = json.loads(line)
            if message["op"] == "send":  # requests overlap; every other command is answered in turn
                task = loop.create_task(send(message))
                sending.add(task)
                task.add_done_callback(sending.discard)
            else:
                reply(await core.answer(message))
    finally:
        # The collector closed our stdin (or died): requests still in flight are abandoned.
        for task in list(sending):
            task.cancel()
        await asyncio.gather(*sending, return_exceptions=True)
        await core.close()


def main() -> None:
    """Serve the collector on stdin/stdout until stdin ends."""
    # Ctrl-C reaches the whole foreground process group: the collector handles it and closes our stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print cannot corrupt the protocol
    asyncio.run(_serve(out))


if __name__ == "__main__":
    main()
