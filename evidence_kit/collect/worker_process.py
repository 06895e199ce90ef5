"""One worker process of the collector: it streams the requests it is handed and returns their raw records.

Started by :class:`~.workers.WorkerPool` as ``python -m evidence_kit.collect.worker_process``
and spoken to in JSON lines: commands on stdin, replies on stdout (the process's own
stdout is pointed at stderr first, so nothing else can reach the protocol). A worker
writes no file and keeps no state between runs beyond its connections; the collector
writes the journal.

The boundary is the one a remote worker (an actor on another machine) could implement:
in come request bodies and the lanes (request slots) of this worker's share of a run's
concurrency; out go per-request records timed on the worker's own monotonic clock, as
durations from the request's send (``Outcome.record``) and ``t_send_s``, the send time
less the arm's start ``t0`` the collector announced in ``hello``. On one Linux machine
every process reads the same ``CLOCK_MONOTONIC``, so ``t0`` means the same instant on
both sides, and ``hello`` checks it (the worker's reading must fall between the
collector's before and after it). Across machines it would not: ``t0`` would have to be
translated by an offset estimated from such an exchange, uncertain by half its round trip.

Commands (``op``): ``hello`` (``t0``) -> ``clock``; ``open`` (``base_url``, ``lanes``) ->
``opened`` (``answered``); ``begin`` (the run's health sampling starts, no reply);
``send`` (``index``, ``lane``, ``url``, ``body``, ``timeout``, and for an open-loop request
``due``, when it was due on the shared monotonic clock) -> ``done`` (``index``,
``record``); ``end`` -> ``health`` (``process``: this process's entry of the run record's
``client.processes``). End of stdin ends the worker.
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
from .runs import timing_fields
from .workers import PROTOCOL_LIMIT

__all__ = ["main"]


class _Worker:
    def __init__(self, out: IO[bytes]):
        self.out = out
        self.client = arm_client(600.0)
        self.t0 = 0.0
        self.health: HealthMonitor | None = None
        self.sending: set[asyncio.Task[None]] = set()

    def reply(self, message: dict[str, Any]) -> None:
        # One write of one line per reply; the pipe's reader is the collector's event loop.
        self.out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.out.flush()

    async def handle(self, message: dict[str, Any]) -> None:
        op = message["op"]
        if op == "hello":
            self.t0 = float(message["t0"])
            self.reply({"op": "clock", "clock": time.monotonic(), "pid": os.getpid()})
        elif op == "open":
            answered = await open_connections(self.client, message["base_url"], [int(lane) for lane in message["lanes"]])
            self.reply({"op": "opened", "answered": answered})
        elif op == "begin":
            self.health = HealthMonitor(time.monotonic)
            self.health.start()
        elif op == "send":
            task = asyncio.get_running_loop().create_task(self.send(message))
            self.sending.add(task)
            task.add_done_callback(self.sending.discard)
        elif op == "end":
            health = await self.health.stop() if self.health is not None else None
            self.health = None
            self.reply({"op": "health", "process": health["processes"][0] if health else None})
        else:
            raise ValueError(f"unknown command {op!r}")

    async def send(self, message: dict[str, Any]) -> None:
        due = message.get("due")  # an open-loop request's due time: its send lag counts from it
        outcome = await stream_chat(self.client, message["url"], message["body"], clock=time.monotonic,
                                    timeout=float(message["timeout"]), lane=int(message["lane"]),
                                    due=None if due is None else float(due))
        # Exactly the fields the collector's own process journals for a request it sends itself.
        self.reply({"op": "done", "index": message["index"], "record": timing_fields(outcome, self.t0)})


async def _serve(out: IO[bytes]) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=PROTOCOL_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    worker = _Worker(out)
    try:
        while line := await reader.readline():
            await worker.handle(json.loads(line))
    finally:
        # The collector closed our stdin (or died): requests still in flight are abandoned.
        for task in list(worker.sending):
            task.cancel()
        await asyncio.gather(*worker.sending, return_exceptions=True)
        await worker.client.aclose()


def main() -> None:
    """Serve the collector on stdin/stdout until stdin ends."""
    # Ctrl-C reaches the whole foreground process group: the collector handles it and closes our stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print cannot corrupt the protocol
    asyncio.run(_serve(out))


if __name__ == "__main__":
    main()
