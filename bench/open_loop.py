"""Benchmark open-loop arrivals: the achieved arrival rate against the planned one, and the send lag.

The simulator runs as its own process (time scale 50, room for 256 sequences); at each planned rate
one open-loop run of ``--requests`` requests (32 output tokens each) is sent on the collector's
schedule (``collect/arrivals.py``), constant and Poisson, in the collector's own process and through
2 worker processes, as ``collect`` sends a run at a ``rate``. For each it prints:
- the planned rate, the schedule's own rate ((n - 1) / the schedule's span: a Poisson schedule of n
  requests is faster or slower than planned by chance) and the achieved rate ((n - 1) / the span of
  the actual sends);
- achieved against planned and against the schedule's, in percent (the client's error is the latter;
  for constant arrivals the two are one);
- the send lag (send time less due time, the journal's ``send_wait_s``): p50, p99 and max, in ms;
- the busiest loop's largest lag and the failed requests.
The machine's load average is printed before and after.

Usage: .venv/bin/python bench/open_loop.py [--rates 5,20,50,100] [--requests 400] [--time-scale 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.collect_client import MODEL, bench_profile, nearest_rank  # noqa: E402
from evidence_kit.collect.arrivals import WARM_LANES, schedule  # noqa: E402
from evidence_kit.collect.connections import arm_client, open_connections  # noqa: E402
from evidence_kit.collect.health import HealthMonitor  # noqa: E402
from evidence_kit.collect.runs import send_scheduled, timing_fields  # noqa: E402
from evidence_kit.collect.workers import WorkerPool, worker_pool  # noqa: E402
from evidence_kit.engine_sim.server import simulator_process  # noqa: E402


def bodies(count: int, tag: str) -> list[dict[str, Any]]:
    return [
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": f"Summarise note {tag}-{i}."}],
            "max_tokens": 32,
            "ignore_eos": True,
            "temperature": 0,
            "seed": i,
        }
        for i in range(count)
    ]


def _rate(times: list[float]) -> float:
    return (len(times) - 1) / (max(times) - min(times))


async def replay(
    url: str, offsets: list[float], run_bodies: list[dict[str, Any]], pool: WorkerPool | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Send ``run_bodies`` on ``offsets`` as ``collect`` sends an open-loop run: the timing fields of each
    request (``t_send_s`` from the run's start) and the client's processes. ``pool`` counts from t0 = 0."""
    chat = f"{url}/v1/chat/completions"
    async with arm_client(300) as client:
        if pool is None:
            await open_connections(client, url, WARM_LANES)
        else:
            await pool.open_connections(url, WARM_LANES)
        health = HealthMonitor(time.monotonic)
        health.start()
        start = time.monotonic()
        if pool is None:
            records = [
                timing_fields(o, start)
                for o in await send_scheduled(client, chat, run_bodies, offsets, start=start, clock=time.monotonic, timeout=300)
            ]
            processes = (await health.stop())["processes"]
        else:
            await pool.begin()
            records = await pool.send_scheduled(chat, run_bodies, offsets, start=start, timeout=300)
            workers = await pool.end()
            processes = (await health.stop())["processes"] + workers
            for record in records:  # the workers count from the pool's t0 (0 here): from the run's start, as above
                record["t_send_s"] -= start
    return records, processes


async def one_run(url: str, rate: float, arrival: str, count: int, pool: WorkerPool | None) -> dict[str, float]:
    offsets = schedule(count, rate, arrival, seed=0, input_nominal=256)
    records, processes = await replay(url, offsets, bodies(count, f"{rate}-{arrival}-{pool is not None}"), pool)
    lags = [r["send_wait_s"] * 1000 for r in records]
    sends = [r["t_send_s"] for r in records]
    return {
        "scheduled": _rate(offsets),
        "achieved": _rate(sends),
        "lag_p50": nearest_rank(lags, 50),
        "lag_p99": nearest_rank(lags, 99),
        "lag_max": max(lags),
        "loop_lag_max_ms": 1000 * max(p["loop_lag_max_s"] or 0.0 for p in processes),
        "failed": sum(not r["ok"] for r in records),
    }


async def bench(url: str, rates: list[float], count: int) -> None:
    async with worker_pool(2, 0.0) as two:
        await one_run(url, rates[0], "constant", 16, None)  # the simulator's first requests
        for rate in rates:
            for arrival in ("constant", "poisson"):
                for name, pool in (("in-process", None), ("2 workers", two)):
                    r = await one_run(url, rate, arrival, count, pool)
                    print(
                        f"| {rate:g} | {arrival} | {name} | {r['scheduled']:.3f} | {r['achieved']:.3f} | "
                        f"{(r['achieved'] / rate - 1) * 100:+.3f}% | {(r['achieved'] / r['scheduled'] - 1) * 100:+.3f}% | "
                        f"{r['lag_p50']:.2f} / {r['lag_p99']:.2f} / {r['lag_max']:.2f} | {r['loop_lag_max_ms']:.1f} | "
                        f"{int(r['failed'])} |",
                        flush=True,
                    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="5,20,50,100")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--time-scale", type=float, default=50.0)
    args = parser.parse_args()
    rates = [float(x) for x in args.rates.split(",")]
    print(
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}; "
        f"time scale {args.time_scale:g}; {args.requests} requests per run"
    )
    print(
        "| planned rate /s | arrival | client | schedule's rate /s | achieved /s | vs planned | vs schedule | "
        "send lag p50 / p99 / max ms | loop lag max ms | failed |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder, simulator_process(bench_profile(Path(folder)), time_scale=args.time_scale) as url:
        asyncio.run(bench(url, rates, args.requests))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
