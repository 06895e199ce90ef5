"""Benchmark the collector's worker processes: streamed tokens/s with the collector alone, 1 and 2 workers.

The simulator runs as its own process at a high time scale (it emits tokens as fast as it can
schedule them); at each concurrency C one closed-loop wave of 4 x C requests (128 tokens each,
``ignore_eos``) is sent three ways in the same run, interleaved round by round:
- ``in-process``: the collector's own process, ``send_all`` on lanes (``workers = 1``, the baseline);
- ``1 worker``, ``2 workers``: the same wave through ``WorkerPool`` (``workers = N``).
For each it prints streamed tokens/s (completion tokens over the wave's wall time), the ratio to the
baseline, the busiest process's loop CPU share and largest loop lag (what ``analyze`` judges), and
the busiest loop's CPU microseconds per streamed token (one process tops out near 1e6 / that
tokens/s; with N workers each loop carries about 1/N of the tokens).
The machine's load average is printed before and after: on a 2-core machine the simulator and the
client share the cores, so two workers cannot double anything the simulator cannot keep up with.

Usage: .venv/bin/python bench/collect_workers.py [--levels 8,32,64,128] [--time-scale 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.collect_client import MODEL, bench_profile  # noqa: E402
from evidence_kit.collect.connections import arm_client, open_connections  # noqa: E402
from evidence_kit.collect.health import HealthMonitor  # noqa: E402
from evidence_kit.collect.runs import send_all, timing_fields  # noqa: E402
from evidence_kit.collect.workers import WorkerPool, worker_pool  # noqa: E402
from evidence_kit.engine_sim.server import simulator_process  # noqa: E402


def bodies(count: int, tag: str) -> list[dict[str, Any]]:
    return [
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": f"Summarise note {tag}-{i}."}],
            "max_tokens": 128,
            "ignore_eos": True,
            "temperature": 0,
            "seed": i,
        }
        for i in range(count)
    ]


async def wave(url: str, concurrency: int, tag: str, pool: WorkerPool | None) -> dict[str, float]:
    wave_bodies = bodies(4 * concurrency, tag)
    chat = f"{url}/v1/chat/completions"
    async with arm_client(300) as client:
        if pool is None:
            await open_connections(client, url, concurrency)
        else:
            await pool.open_connections(url, concurrency)
        health = HealthMonitor(time.monotonic)
        health.start()
        if pool is None:
            records = [
                timing_fields(o, 0.0) for o in await send_all(client, chat, wave_bodies, concurrency=concurrency, clock=time.monotonic, timeout=300)
            ]
            client_health = await health.stop()
        else:
            await pool.begin()
            records = await pool.send_all(chat, wave_bodies, concurrency=concurrency, timeout=300)
            workers = await pool.end()
            client_health = await health.stop()
            client_health["processes"] += workers
    wall = client_health["wall_s"]
    processes = client_health["processes"]
    tokens = sum(r["completion_tokens"] or 0 for r in records if r["ok"])
    return {
        "tokens_per_s": tokens / wall,
        "failed": sum(not r["ok"] for r in records),
        "loop_cpu_share": max(p["loop_cpu_s"] for p in processes) / wall,
        "loop_lag_max_ms": 1000 * max(p["loop_lag_max_s"] or 0.0 for p in processes),
    }


async def bench(url: str, levels: list[int], rounds: int) -> None:
    async with worker_pool(1, 0.0) as one, worker_pool(2, 0.0) as two:
        ways: dict[str, WorkerPool | None] = {"in-process": None, "1 worker": one, "2 workers": two}
        for level in levels:
            await wave(url, level, f"warm-{level}", None)  # the simulator's first wave at this level
            results: dict[str, list[dict[str, float]]] = {name: [] for name in ways}
            for r in range(rounds):
                for name, pool in ways.items():
                    results[name].append(await wave(url, level, f"{level}-{r}-{name}", pool))
            base = statistics.median(x["tokens_per_s"] for x in results["in-process"])
            for name, runs in results.items():
                rate = statistics.median(x["tokens_per_s"] for x in runs)
                share = max(x["loop_cpu_share"] for x in runs)
                # The busiest loop's CPU per streamed token: what bounds one process's tokens/s (1 / it at a whole core).
                per_token = statistics.median(x["loop_cpu_share"] / x["tokens_per_s"] * 1e6 for x in runs)
                print(
                    f"| {level} | {name} | {rate:,.0f} | {rate / base:.2f} | {share:.2f} | {per_token:.1f} | "
                    f"{max(x['loop_lag_max_ms'] for x in runs):.1f} | {int(sum(x['failed'] for x in runs))} |",
                    flush=True,
                )


def wave_options(description: str, levels: str) -> argparse.ArgumentParser:
    """The options of a benchmark of waves against the simulator: ``--levels``, ``--time-scale``, ``--rounds``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--levels", default=levels, help="the concurrencies, comma-separated")
    parser.add_argument("--time-scale", type=float, default=200.0)
    parser.add_argument("--rounds", type=int, default=3)
    return parser


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    args = wave_options(__doc__.splitlines()[0], "8,32,64,128").parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    print(f"load average before: {load_average()}; cores: {os.cpu_count()}; time scale {args.time_scale:g}; {args.rounds} rounds, median tokens/s")
    print("| C | client | streamed tokens/s | vs in-process | busiest loop CPU share | busiest loop µs/token | loop lag max ms | failed |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder, simulator_process(bench_profile(Path(folder)), time_scale=args.time_scale) as url:
        asyncio.run(bench(url, levels, args.rounds))
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
