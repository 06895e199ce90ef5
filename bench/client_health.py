"""Measure the collector's own health on the simulator: what a healthy client journals per run.

Collects one A/B/A trial on the simulator (each arm started by the plan as its own process, as in
real use) at concurrency levels ``--levels``, one repetition of ``--requests`` requests per level,
then prints each run's client figures as ``analyze`` derives them from the journals (loop lag p50
and max, send wait p50 and max, the event loop thread's CPU share of one core, achieved
concurrency) and the largest of each over the trial: the numbers the defaults of trial.json's
``client`` bounds are chosen against (docs/benchmarks.md).

Usage: .venv/bin/python bench/client_health.py [--levels 1,2,4,8,16,32] [--requests 64] [--time-scale 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evidence_kit.analyze import analyze  # noqa: E402
from evidence_kit.collect import collect_trial  # noqa: E402
from evidence_kit.read import load_trial  # noqa: E402

PLAN = """trial_id = "client-health"
title = "Client health on the simulator"
engine_kind = "simulated"
sequence = ["original", "layout", "original"]
[decision_rule]
min_improvement = 0.1
[workload]
input_nominal = [1024]
concurrency = {levels}
repetitions = 1
requests_per_run = {requests}
max_tokens = 128
warmup_requests = 2
[arms.original]
base_url = "http://127.0.0.1:{{port}}"
model = "sim-org/sim-model-7b-simulated"
start = "{{python}} -m evidence_kit sim --profile original --port {{port}} --time-scale {scale}"
ready_url = "{{base_url}}/health"
[arms.layout]
base_url = "http://127.0.0.1:{{port}}"
model = "sim-org/sim-model-7b-simulated"
start = "{{python}} -m evidence_kit sim --profile layout-candidate --port {{port}} --time-scale {scale}"
ready_url = "{{base_url}}/health"
"""


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,2,4,8,16,32")
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--time-scale", type=float, default=20.0)
    args = parser.parse_args()
    levels = [int(c) for c in args.levels.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan.toml"
        plan.write_text(PLAN.format(levels=levels, requests=max(args.requests, max(levels)), scale=args.time_scale))
        collect_trial(plan, Path(tmp) / "raw")
        trial = analyze(load_trial(Path(tmp) / "raw")).trials[0]
    print("| phase | C | wall s | loop lag p50 / max ms | send wait p50 / max ms | loop CPU | achieved C | exceeded |")
    print("|---|---|---|---|---|---|---|---|")
    for run in trial.runs:
        c = run.client
        assert c is not None
        share = "-" if c.loop_cpu_share is None else f"{c.loop_cpu_share:.2f}"
        achieved = "-" if c.achieved_concurrency is None else f"{c.achieved_concurrency:.2f}"
        print(
            f"| {run.phase} | {run.concurrency} | {c.wall_s:.3f} | {_ms(c.loop_lag_p50_s)} / {_ms(c.loop_lag_max_s)} | "
            f"{_ms(c.send_wait_p50_s)} / {_ms(c.send_wait_max_s)} | {share} | {achieved} | "
            f"{', '.join(e.bound for e in c.exceeded) or '-'} |"
        )
    clients = [r.client for r in trial.runs if r.client is not None]
    print(
        f"\nlargest: loop lag {_ms(max(c.loop_lag_max_s or 0 for c in clients))} ms, send wait "
        f"{_ms(max(c.send_wait_max_s or 0 for c in clients))} ms, loop CPU "
        f"{max(c.loop_cpu_share or 0 for c in clients):.2f}; saturated runs {trial.client_runs_saturated}/{len(clients)}"
    )


if __name__ == "__main__":
    main()
