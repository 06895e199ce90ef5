"""Benchmark workers as Ray actors against local worker processes: the same waves, in the same run.

A real local Ray head is started (``ray start --head`` on 127.0.0.1, in its own temporary
folder and process group, ended by that group) and the simulator runs as its own process at a high
time scale. The head stays in this process's session: Linux's autogroup scheduler shares the CPU
between sessions, and actors in a session of their own got up to twice the CPU share of the local
worker processes on the loaded machine (a first version measured Ray "2x faster" that way). At each concurrency C one closed-loop wave of 4 x C requests (128 tokens each,
``ignore_eos``) is sent two ways, interleaved round by round (which goes first alternating) so both
see the same machine:
- ``processes``: N local worker processes (``WorkerPool`` of ``worker_pool``: ``--workers N``);
- ``ray``: N Ray actors on the local head (``ray_pool``: ``--workers N --ray ADDRESS``).
For each it prints the median over rounds of streamed tokens/s (completion tokens over the
wave's wall time), median and p99 TTFT (ms) and median end-to-end time (ms), each as a ratio to
``processes`` (the goal is within 10 %), the requests in flight on average (the sum of end-to-end
times over the wall time: the closed loop's achieved concurrency, at most C) and the busiest loop's
CPU share. The machine's load
average is printed before and after: on a 2-core machine the simulator, the collector and the
workers (and Ray's own daemons) share the cores.

Usage: .venv/bin/python bench/collect_ray.py [--levels 8,32,64] [--workers 2] [--time-scale 200] [--rounds 3]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.collect_client import bench_profile  # noqa: E402
from bench.collect_workers import bodies, load_average, wave_options  # noqa: E402
from evidence_kit.collect.health import HealthMonitor  # noqa: E402
from evidence_kit.collect.ray_workers import connect, disconnect, ray_pool  # noqa: E402
from evidence_kit.collect.workers import WorkerPool, worker_pool  # noqa: E402
from evidence_kit.engine_sim.server import simulator_process  # noqa: E402
from tests.collect.ray_head import ray_head  # noqa: E402


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(-(-99 * len(ordered) // 100), 1) - 1]


async def wave(url: str, concurrency: int, tag: str, pool: WorkerPool) -> dict[str, float]:
    await pool.open_connections(url, concurrency)
    health = HealthMonitor(time.monotonic)
    health.start()
    await pool.begin()
    records = await pool.send_all(f"{url}/v1/chat/completions", bodies(4 * concurrency, tag), concurrency=concurrency, timeout=300)
    processes = await pool.end()
    client = await health.stop()
    wall = client["wall_s"]
    ok = [r for r in records if r["ok"]]
    ttft = [1000 * r["ttft_s"] for r in ok if r["ttft_s"] is not None]
    return {
        "tokens_per_s": sum(r["completion_tokens"] or 0 for r in ok) / wall,
        "ttft_p50_ms": statistics.median(ttft),
        "ttft_p99_ms": _p99(ttft),
        "e2e_p50_ms": statistics.median(1000 * r["e2e_s"] for r in ok),
        "failed": len(records) - len(ok),
        # Requests on the wire on average (the closed loop's achieved concurrency): sum of e2e over the wall.
        "in_flight": sum(r["e2e_s"] for r in ok) / wall,
        "loop_cpu_share": max(p["loop_cpu_s"] for p in [*client["processes"], *processes]) / wall,
    }


async def bench(url: str, levels: list[int], workers: int, rounds: int, driver: dict[str, Any]) -> None:
    async with worker_pool(workers, 0.0) as processes, ray_pool(workers, 0.0, max(levels), driver) as actors:
        ways = {"processes": processes, "ray": actors}
        for level in levels:
            for pool in ways.values():
                await wave(url, level, f"warm-{level}", pool)  # each way's first wave at this level
            results: dict[str, list[dict[str, float]]] = {name: [] for name in ways}
            for r in range(rounds):
                # Alternating which goes first, so neither always meets the simulator just after the other.
                for name in list(ways) if r % 2 == 0 else list(reversed(ways)):
                    results[name].append(await wave(url, level, f"{level}-{r}-{name}", ways[name]))
            base = {
                key: statistics.median(x[key] for x in results["processes"])
                for key in ("tokens_per_s", "ttft_p50_ms", "ttft_p99_ms", "e2e_p50_ms", "in_flight")
            }
            for name, runs in results.items():
                med = {key: statistics.median(x[key] for x in runs) for key in base}
                print(
                    f"| {level} | {workers} {name} | {med['tokens_per_s']:,.0f} ({med['tokens_per_s'] / base['tokens_per_s']:.2f}) | "
                    f"{med['ttft_p50_ms']:.1f} ({med['ttft_p50_ms'] / base['ttft_p50_ms']:.2f}) | "
                    f"{med['ttft_p99_ms']:.1f} ({med['ttft_p99_ms'] / base['ttft_p99_ms']:.2f}) | "
                    f"{med['e2e_p50_ms']:.1f} ({med['e2e_p50_ms'] / base['e2e_p50_ms']:.2f}) | {med['in_flight']:.1f} | "
                    f"{max(x['loop_cpu_share'] for x in runs):.2f} | {int(sum(x['failed'] for x in runs))} |",
                    flush=True,
                )


def main() -> None:
    parser = wave_options(__doc__.splitlines()[0], "8,32,64")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    print(
        f"load average before: {load_average()}; cores: {os.cpu_count()}; "
        f"time scale {args.time_scale:g}; {args.rounds} rounds, medians (ratio to processes)"
    )
    print("| C | workers | streamed tokens/s | TTFT p50 ms | TTFT p99 ms | E2E p50 ms | in flight | busiest loop CPU share | failed |")
    print("|---|---|---|---|---|---|---|---|---|")
    with (
        ray_head(cpus=args.workers, own_session=False) as head,
        tempfile.TemporaryDirectory() as folder,
        simulator_process(bench_profile(Path(folder)), time_scale=args.time_scale) as url,
    ):
        driver = connect(head.address)
        try:
            asyncio.run(bench(url, levels, args.workers, args.rounds, driver))
        finally:
            disconnect()
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
