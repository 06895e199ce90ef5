"""Statistics v4's verdicts against known truth: false wins, power, coverage, and the planner's promise.

Seeded synthetic trials (``analyze/simulate.py``: lognormal launch, run and request noise; run sd 5 %,
request sd 10 %, 4 requests a run) judged by the rule itself (``launch_intervals``, ``verdict_v4``, Holm's
step-down over the trial's groups), under a 10 % rule:

1. **False promotion**: the share of 4-group trials that promote at a true improvement of 0, 5, 8 and 10 %
   (every group alike), v4 ``bound`` against ``point`` (no error control), 3 runs per block, with and
   without 3 % launch noise. Goal: at most 5 % at 8 %.
2. **Power**: the same at 15, 20 and 30 %.
3. **Coverage** of the 95 % launch-level interval at a true 0 %, 2, 3, 5 and 10 runs, with and without
   3 % launch noise. Goal: at least 93 % with 3 % launch noise at every run count.
4. **Planned against achieved**: pilots of A/B/A/B/A/B/A x 3 runs drawn from one known world (launch sd
   2 %); each plans (``plan_v4.plan_design``) the runs per block of A/B/A/B/A/B/A that reach 80 % power at
   a 20 % improvement; the plan's power is then measured in the known world. Goal: the mean achieved power
   within 5 points of the promise.

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

from evidence_kit.analyze.plan_v4 import PlanRefused, design_label, pilot_noise, plan_design  # noqa: E402
from evidence_kit.analyze.simulate import Truth, _group_runs, arms_of, simulate_trial  # noqa: E402
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


def planned_vs_achieved(pilots: int, trials: int, seed: int, launch: float = 0.02) -> tuple[list[str], float, float]:
    """Plans from ``pilots`` pilots of one world, and the power each plan achieves there."""
    rng = np.random.default_rng(seed)
    truth = Truth(change=0.0, sd_run=SD_RUN, sd_request=SD_REQUEST, sd_launch=launch)
    rows, achieved = [], []
    for p in range(pilots):
        pilot = _group_runs(rng, arms_of("ABABABA"), truth, 3, REQUESTS)
        try:
            noise = pilot_noise("ABABABA", pilot)
        except PlanRefused as refused:
            rows.append(f"pilot {p}: refused ({refused})")
            continue
        plan = plan_design(noise, "ABABABA", RULES["bound"], 0.20, groups=1, trials=trials, seed=seed + p)
        if plan.runs is None:
            rows.append(f"pilot {p}: more than 20 runs per block")
            continue
        real = promotion_rate("ABABABA", RULES["bound"], 0.20, launch, plan.runs, trials, seed + 1000 + p, groups=1)
        achieved.append(real)
        rows.append(f"pilot {p}: {plan.runs} runs per block, planned {plan.planned_power:.0%}, achieved {real:.0%}")
    return rows, float(np.mean(achieved)) if achieved else float("nan"), float(np.mean([a >= 0.8 for a in achieved])) if achieved else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=600, help="simulated trials per cell")
    parser.add_argument("--pilots", type=int, default=20, help="pilots planned from (part 4)")
    parser.add_argument("--tiny", action="store_true", help="a smoke run: 20 trials a cell, 2 pilots")
    args = parser.parse_args()
    trials, pilots = (20, 2) if args.tiny else (args.trials, args.pilots)
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
    rows, mean_achieved, share = planned_vs_achieved(pilots, min(trials, 400), seed=11)
    print("\nplanned (80% power at a 20% improvement, A/B/A/B/A/B/A) against achieved, pilots A/B/A/B/A/B/A x 3, launch sd 2%")
    print("\n".join(rows))
    print(f"mean achieved power {mean_achieved:.1%}; plans reaching 80%: {share:.0%}")
    print(f"{time.perf_counter() - started:.0f} s; load average at end: {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
