"""Statistics v4's verdicts against known truth: false wins, power and coverage.

Seeded synthetic trials (``analyze/simulate.py``: lognormal launch, run and request noise; run sd 5 %,
request sd 10 %, 4 requests a run) judged by the rule itself (``launch_intervals``, ``verdict_v4``, Holm's
step-down over the trial's groups), under a 10 % rule:

1. **False promotion**: the share of 4-group trials that promote at a true improvement of 0, 5, 8 and 10 %
   (every group alike), v4 ``bound`` against ``point`` (no error control), 3 runs per block, with and
   without 3 % launch noise. Goal: at most 5 % at 8 %.
2. **Power**: the same at 15, 20 and 30 %.
3. **Coverage** of the 95 % launch-level interval at a true 0 %, 2, 3, 5 and 10 runs, with and without
   3 % launch noise. Goal: at least 93 % with 3 % launch noise at every run count.
The planner's planned against achieved power is ``bench/stat_planner.py``'s.

    .venv/bin/python bench/stat_verdicts.py            # the full run (minutes)
    .venv/bin/python bench/stat_verdicts.py --tiny     # a smoke run (the test's)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evidence_kit.analyze.plan_v4 import design_label  # noqa: E402
from evidence_kit.analyze.simulate import Truth, arms_of, simulate_trial  # noqa: E402
from evidence_kit.model.trial import DecisionRule  # noqa: E402

SD_RUN, SD_REQUEST, REQUESTS = 0.05, 0.10, 4
RULES = {
    "bound": DecisionRule.model_validate({"min_improvement": 0.10, "statistics": 4}),
    "point": DecisionRule.model_validate({"min_improvement": 0.10, "statistics": 4, "confidence": "point"}),
}


def promotion_rate(design: str, rule: DecisionRule, improvement: float, launch: float, runs: int, trials: int, seed: int, groups: int = 4) -> float:
    rng = np.random.default_rng(seed)
    arms = arms_of(design)
    truth = Truth(change=-improvement, sd_run=SD_RUN, sd_request=SD_REQUEST, sd_launch=launch)
    return (
        sum(simulate_trial(rng, design, truth, rule, groups=groups, runs=runs, requests=REQUESTS, arms=arms).promoted for _ in range(trials)) / trials
    )


def coverage(design: str, launch: float, runs: int, trials: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    arms = arms_of(design)
    truth = Truth(change=0.0, sd_run=SD_RUN, sd_request=SD_REQUEST, sd_launch=launch)
    hits = [
        c
        for _ in range(trials)
        for c in simulate_trial(rng, design, truth, RULES["bound"], groups=1, runs=runs, requests=REQUESTS, arms=arms).covered
    ]
    drawn = [c for c in hits if c is not None]
    return sum(drawn) / len(drawn) if drawn else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=600, help="simulated trials per cell")
    parser.add_argument("--tiny", action="store_true", help="a smoke run: 20 trials a cell")
    args = parser.parse_args()
    trials = 20 if args.tiny else args.trials
    started = time.perf_counter()
    print(f"load average at start: {os.getloadavg()[0]:.2f}; {trials} trials a cell", file=sys.stderr)
    for design in ("ABA", "ABABA"):
        for launch in (0.0, 0.03):
            print(f"\n{design_label(design)}, launch sd {launch:.0%}, 3 runs x {REQUESTS} requests, 4 groups: share of trials promoted")
            print("true improvement | " + " | ".join(RULES))
            for improvement in (0.0, 0.05, 0.08, 0.10, 0.15, 0.20, 0.30):
                rates = [promotion_rate(design, rule, improvement, launch, 3, trials, seed=int(improvement * 1000) + 7) for rule in RULES.values()]
                print(f"{improvement:.0%} | " + " | ".join(f"{r:.1%}" for r in rates))
    print("\n95% launch-level interval coverage at a true 0%")
    print("design, launch sd | 2 runs | 3 runs | 5 runs | 10 runs")
    for design in ("ABA", "ABABA", "ABBA"):
        for launch in (0.0, 0.03):
            cells = [coverage(design, launch, runs, trials, seed=runs) for runs in (2, 3, 5, 10)]
            print(f"{design_label(design)}, {launch:.0%} | " + " | ".join(f"{c:.1%}" for c in cells))
    print(f"{time.perf_counter() - started:.0f} s; load average at end: {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
