"""Benchmark trace replay: how close each replayed arrival comes to its offset in the trace.

A Mooncake-layout trace (timestamp ms, input_length, output_length, hash_ids) is written with seeded
bursty arrivals (Poisson gaps at ``--rate``, every tenth gap a burst of near-simultaneous requests),
read back with the collector's own reader (``collect/trace.py``) and replayed open loop against the
simulator in its own process, as ``collect`` replays ``[workload] trace``: each request due at its
offset times ``--time-scale-trace``, sized and capped by its line. From the collector's own process
and through two worker processes it prints: the trace's span and the replay's (first to last send),
the replayed span against the trace's in percent, and each arrival's error (its send less the run's
start, less its offset): p50, p99 and max in ms, and the share of arrivals at least 1 s into the run
whose offset is within 1 % of the trace's. The machine's load average is printed before and after.

Usage: .venv/bin/python bench/trace_replay.py [--requests 200] [--rate 10] [--time-scale-trace 1] [--time-scale 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.collect_client import MODEL, bench_profile, nearest_rank  # noqa: E402
from bench.open_loop import replay  # noqa: E402
from evidence_kit.analyze.stats import SplitMix64  # noqa: E402
from evidence_kit.collect.trace import Trace, read_trace  # noqa: E402
from evidence_kit.collect.workers import worker_pool  # noqa: E402
from evidence_kit.engine_sim.server import simulator_process  # noqa: E402


def write_trace(path: Path, count: int, rate: float) -> Path:
    """A seeded bursty trace in the Mooncake layout."""
    rng = SplitMix64(2026)
    at, lines = 0.0, []
    for i in range(count):
        u = ((rng.next() >> 11) + 1) * 2.0**-53
        at += 0.001 if i % 10 == 9 else -math.log(u) / rate  # a burst: the next one 1 ms later
        lines.append(
            {
                "timestamp": round(at * 1000, 3),
                "input_length": 64 + rng.below(512),
                "output_length": 8 + rng.below(24),
                "hash_ids": [rng.below(1000) for _ in range(3)],
            }
        )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


async def bench(url: str, trace: Trace, scale: float) -> None:
    offsets = trace.offsets(scale)
    bodies = [
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": "word " * line.input_length}],
            "max_tokens": line.output_length,
            "ignore_eos": True,
            "temperature": 0,
            "seed": i,
        }
        for i, line in enumerate(trace.requests)
    ]
    async with worker_pool(2, 0.0) as two:
        await replay(url, offsets[:8], bodies[:8], None)  # the simulator's first requests
        for name, pool in (("in-process", None), ("2 workers", two)):
            records, _ = await replay(url, offsets, bodies, pool)
            sends = [r["t_send_s"] for r in records]
            errors = [(s - o) * 1000 for s, o in zip(sends, offsets)]
            later = [(s, o) for s, o in zip(sends, offsets) if o >= 1.0]
            within = sum(abs(s / o - 1) <= 0.01 for s, o in later) / len(later) if later else math.nan  # a trace under 1 s has none
            span = max(sends) - min(sends)
            print(
                f"| {name} | {len(records)} | {offsets[-1]:.3f} | {span:.3f} | {(span / offsets[-1] - 1) * 100:+.3f}% | "
                f"{nearest_rank(errors, 50):.2f} / {nearest_rank(errors, 99):.2f} / {max(errors):.2f} | "
                f"{within * 100:.1f}% of {len(later)} | {sum(not r['ok'] for r in records)} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--time-scale-trace", type=float, default=1.0)
    parser.add_argument("--time-scale", type=float, default=50.0)
    args = parser.parse_args()
    print(
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}; "
        f"{args.requests} trace lines at about {args.rate:g}/s, bursts of 2; trace_time_scale {args.time_scale_trace:g}"
    )
    print("| client | requests | trace span s | replayed span s | vs trace | arrival error p50 / p99 / max ms | arrivals ≥ 1 s within 1 % | failed |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        trace = read_trace(write_trace(Path(folder) / "trace.jsonl", args.requests, args.rate))
        with simulator_process(bench_profile(Path(folder)), time_scale=args.time_scale) as url:
            asyncio.run(bench(url, trace, args.time_scale_trace))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
