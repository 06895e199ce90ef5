"""How long a run's opening burst waits inside the client before it goes on the wire (``send_wait_s``).

One wave of C streamed requests at concurrency C (a run's first wave: every slot sends at
once) against ``evidence-kit sim`` in its own process, through the collector's ``send_all``
and ``stream_chat``, four ways, interleaved round by round so all meet the same machine:

- ``shared, cold``: one shared httpx pool of C + 4 connections, nothing open (the collector
  before this change, on an arm's first run);
- ``shared, warm``: the same pool right after a wave that left C idle connections (the
  collector before this change, on every later run): the **baseline**;
- ``lanes, cold``: the collector's client (one connection per slot), nothing open;
- ``lanes, opened``: the collector as it is: ``open_connections`` first, then the wave.

Prints the machine's load average, send wait p50 / p99 / max per C and way (nearest rank,
over every request of every round), and each way's p99 against the baseline's in the same run.

Usage: python bench/warm_connections.py [--levels 8,32,64] [--rounds 3] [--time-scale 20]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evidence_kit.collect.connections import arm_client, open_connections  # noqa: E402
from evidence_kit.collect.runs import send_all  # noqa: E402
from evidence_kit.engine_sim.server import simulator_process  # noqa: E402

MODEL = "sim-org/sim-model-7b-simulated"
WAYS = ("shared, cold", "shared, warm", "lanes, cold", "lanes, opened")
BASELINE = "shared, warm"


def nearest_rank(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


async def one_wave(client: httpx.AsyncClient, url: str, concurrency: int, tag: str) -> list[float]:
    """Send one wave and return each request's send wait in milliseconds (all must succeed)."""
    bodies = [
        {"model": MODEL, "messages": [{"role": "user", "content": f"Summarise note {tag}-{i}."}], "max_tokens": 16, "temperature": 0, "seed": i}
        for i in range(concurrency)
    ]
    outcomes = await send_all(client, f"{url}/v1/chat/completions", bodies, concurrency=concurrency, clock=time.monotonic, timeout=120)
    failed = [o.error for o in outcomes if not o.ok]
    if failed:
        raise SystemExit(f"{len(failed)} request(s) failed, e.g. {failed[0]}")
    return [(o.t_send - o.t_intent) * 1000 for o in outcomes if o.t_intent is not None]


def shared_client(concurrency: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency + 4)
    return httpx.AsyncClient(limits=limits, timeout=120)


async def measure(way: str, url: str, concurrency: int, tag: str) -> list[float]:
    client = arm_client(120) if way.startswith("lanes") else shared_client(concurrency)
    async with client:
        prepare: Callable[[], Awaitable[object]] | None = {
            "shared, warm": lambda: one_wave(client, url, concurrency, tag + "-prior"),
            "lanes, opened": lambda: open_connections(client, url, concurrency),
        }.get(way)
        if prepare is not None:
            await prepare()
        return await one_wave(client, url, concurrency, tag)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default="8,32,64")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--time-scale", type=float, default=20.0)
    args = parser.parse_args()
    levels = [int(c) for c in args.levels.split(",")]
    load_before = os.getloadavg()
    waits: dict[tuple[int, str], list[float]] = {(c, w): [] for c in levels for w in WAYS}
    with simulator_process("original", time_scale=args.time_scale) as url:
        for round_ in range(args.rounds):
            for c in levels:
                for way in WAYS:
                    waits[c, way] += asyncio.run(measure(way, url, c, f"r{round_}-c{c}-{WAYS.index(way)}"))
    load_after = os.getloadavg()
    print(
        f"load average (1, 5, 15 min): before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
        f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}; {os.cpu_count()} CPUs; "
        f"{args.rounds} rounds, time scale {args.time_scale:g}\n"
    )
    print("| C | way | requests | send wait p50 / p99 / max ms | p99 / baseline p99 |")
    print("|---|---|---|---|---|")
    for c in levels:
        base = nearest_rank(waits[c, BASELINE], 99)
        for way in WAYS:
            values = waits[c, way]
            p99 = nearest_rank(values, 99)
            print(
                f"| {c} | {way}{' (baseline)' if way == BASELINE else ''} | {len(values)} | "
                f"{statistics.median(values):.2f} / {p99:.2f} / {max(values):.2f} | {p99 / base:.3f} |"
            )


if __name__ == "__main__":
    main()
