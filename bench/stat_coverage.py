"""Statistics with known truth: interval coverage and promotion error rates on synthetic A/B/A trials.

Each synthetic trial is one group of three arms (before, candidate, restored) of R repetitions of
M requests. A request's E2E is ``5 s x (1 - true change, candidate only) x run factor x request
factor``, both factors lognormal with the scenario's standard deviations: every run of every arm
gets its own run factor (run-to-run noise), every request its own request factor. The true ratio
of the candidate's population median to a control's is exactly ``1 - true change``.

Every trial goes through the real path: :func:`evidence_kit.examples.synthetic.synthetic_trial`
builds the in-memory evidence the loader would, :func:`evidence_kit.analyze.groups.group_results`
draws its seeded run-level and request-level intervals, comparisons and verdict (the rule's
``point`` confidence), and :func:`evidence_kit.analyze.verdicts.verdict_for` gives the verdicts at
``significant`` and ``bound`` from the same comparisons and intervals.

Measured, per scenario and shape:

- coverage: how often each 95 % interval (against each control; pooled over the true changes,
  which do not change coverage: the statistics are scale-equivariant) contains the true ratio;
  the two methods ``analyze`` draws (``run-t``, the studentised run-level interval, the default, and
  ``request``) and the adjusted two-stage percentile bootstrap ``run`` (the former default, drawn with
  the seed it had as the default, so its column repeats the former default's figures);
- promotion: how often a group is promoted (verdict ``win``) at each confidence, with a 10 %
  threshold; a promotion at a true 0 % or 5 % change is a false promotion, no promotion at a true
  20 % change a missed one (a true 10 % change sits on the threshold: shown, counted as neither).

    .venv/bin/python bench/stat_coverage.py [--trials 500] [--shapes 3x4,6x4,10x4] [--scenarios mixed,run-heavy,request-only,run-only] [--coverage-only]

With ``--coverage-only`` each trial's median intervals are drawn directly, with the seeds and the
canonical run order ``group_results`` uses (so the same intervals), and no verdicts.

Prints the command line, the machine's load average, the elapsed time and two Markdown tables.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evidence_kit.analyze.groups import group_results  # noqa: E402
from evidence_kit.analyze.stats import bootstrap_ratio_interval, seed_for  # noqa: E402
from evidence_kit.analyze.verdicts import verdict_for  # noqa: E402
from evidence_kit.examples.synthetic import synthetic_trial  # noqa: E402
from evidence_kit.model import CONTROLS, PHASES  # noqa: E402
from evidence_kit.model.trial import CONFIDENCES  # noqa: E402

# name -> (run-to-run sd, request-to-request sd), lognormal on the log scale
SCENARIOS: dict[str, tuple[float, float]] = {
    "mixed": (0.03, 0.05),
    "run-heavy": (0.05, 0.02),
    "request-only": (0.0, 0.05),
    "noisy": (0.06, 0.10),
    "very-noisy": (0.10, 0.20),
    # Almost all the noise between runs: the hardest case for few repetitions (the pooled median of a
    # run is then that run's level), used to find from how many runs the default interval covers.
    "run-only": (0.05, 0.005),
}
METHODS = ("run-t", "run", "request")
CHANGES = (0.0, 0.05, 0.10, 0.20)
BASE_S = 5.0


@dataclass
class Tally:
    """Counts for one scenario and shape."""

    covered: dict[str, int] = field(default_factory=lambda: dict.fromkeys(METHODS, 0))
    intervals: int = 0
    promoted: dict[tuple[str, float], int] = field(default_factory=dict)
    trials: dict[float, int] = field(default_factory=dict)

    def rate(self, confidence: str, change: float) -> float:
        return self.promoted.get((confidence, change), 0) / self.trials[change]


def _runs(scenario: str, repetitions: int, requests: int, change: float, index: int) -> tuple[str, dict[str, list[list[float]]]]:
    run_sd, request_sd = SCENARIOS[scenario]
    trial_id = f"cov-{scenario}-{repetitions}x{requests}-{round(change * 100)}-{index}"
    rng = np.random.default_rng(seed_for("bench/stat_coverage", trial_id))
    runs = {
        phase: [
            list(BASE_S * (1 - change if phase == "candidate" else 1) * math.exp(rng.normal(0, run_sd)) * np.exp(rng.normal(0, request_sd, requests)))
            for _ in range(repetitions)
        ]
        for phase in PHASES
    }
    return trial_id, runs


def analysis_interval(trial_id: str, runs: dict[str, list[list[float]]], control: str, method: str) -> tuple[float, float] | None:
    """The median interval ``group_results`` draws for the synthetic trial's one group (8192 tokens, C4) with
    ``method``: the same seed and the same canonical run order (tests/analyze/test_stat_coverage.py checks it)."""
    seed = seed_for("evidence-kit/bootstrap/v2", trial_id, "e2e_s", "median", method, 8192, 4, control)
    canonical = {phase: sorted(sorted(run) for run in runs[phase]) for phase in ("candidate", control)}
    return bootstrap_ratio_interval(canonical["candidate"], canonical[control], seed, method=method)


def intervals_only(scenario: str, repetitions: int, requests: int, change: float, index: int, tally: Tally) -> None:
    """Coverage alone, without the verdicts: each method's two median intervals, as ``group_results`` draws them."""
    trial_id, runs = _runs(scenario, repetitions, requests, change, index)
    truth = 1 - change
    for control in CONTROLS:
        for method in METHODS:
            interval = analysis_interval(trial_id, runs, control, method)
            tally.covered[method] += interval is not None and interval[0] <= truth <= interval[1]
    tally.intervals += len(CONTROLS)
    tally.trials[change] = tally.trials.get(change, 0) + 1


def one_trial(scenario: str, repetitions: int, requests: int, change: float, index: int, threshold: float, tally: Tally) -> None:
    trial_id, runs = _runs(scenario, repetitions, requests, change, index)
    evidence = synthetic_trial(trial_id, runs, min_improvement=threshold)
    [group] = group_results(evidence)
    truth = 1 - change
    by_method = {"run-t": group.intervals, "request": group.request_intervals}
    for method, intervals in by_method.items():
        tally.covered[method] += sum(i.low is not None and i.high is not None and i.low <= truth <= i.high for i in intervals)
    for control in CONTROLS:
        # The seed the adjusted percentile method had as analyze's default, so this column is the former default's.
        interval = analysis_interval(trial_id, runs, control, "run")
        tally.covered["run"] += interval is not None and interval[0] <= truth <= interval[1]
    tally.intervals += len(CONTROLS)
    tally.trials[change] = tally.trials.get(change, 0) + 1
    rule = evidence.trial.decision_rule
    for confidence in CONFIDENCES:
        verdict = (
            group.verdict
            if confidence == rule.confidence
            else verdict_for(
                group.comparisons[rule.metric],
                group.intervals,
                rule.model_copy(update={"confidence": confidence}),
                group.verdict.control_drift_pct,
                drift_flagged=group.verdict.drift_flagged,
                guardrails_held=True,
            )
        )
        key = (confidence, change)
        tally.promoted[key] = tally.promoted.get(key, 0) + verdict.win


def run(
    scenarios: list[str],
    shapes: list[tuple[int, int]],
    changes: tuple[float, ...],
    trials: int,
    threshold: float = 0.10,
    progress: bool = False,
    coverage_only: bool = False,
) -> dict[tuple[str, tuple[int, int]], Tally]:
    """Every trial of every scenario, shape and true change; the tallies by (scenario, shape)."""
    out: dict[tuple[str, tuple[int, int]], Tally] = {}
    for scenario in scenarios:
        for shape in shapes:
            tally = out.setdefault((scenario, shape), Tally())
            for change in changes:
                for index in range(trials):
                    if coverage_only:
                        intervals_only(scenario, *shape, change, index, tally)
                    else:
                        one_trial(scenario, *shape, change, index, threshold, tally)
            if progress:
                cells = " ".join(f"{m} {_pct(tally.covered[m] / tally.intervals)}" for m in METHODS)
                print(f"{scenario} {shape[0]}x{shape[1]}: {cells} ({tally.intervals} intervals)", file=sys.stderr, flush=True)
    return out


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def tables(results: dict[tuple[str, tuple[int, int]], Tally], promotion: bool = True) -> str:
    lines = [
        "| scenario (run sd, request sd) | R x M | intervals | run-t (default, studentised) | run (adjusted percentile) | request |",
        "|---|---|---|---|---|---|",
    ]
    for (scenario, (r, m)), tally in results.items():
        run_sd, request_sd = SCENARIOS[scenario]
        cells = [_pct(tally.covered[method] / tally.intervals) for method in METHODS]
        lines.append(f"| {scenario} ({run_sd:.0%}, {request_sd:.0%}) | {r} x {m} | {tally.intervals:,} | " + " | ".join(cells) + " |")
    if not promotion:
        return "\n".join(lines) + "\n"
    lines += [
        "",
        "| scenario | R x M | confidence | false promotion, true 0% | false promotion, true 5% "
        "| promoted, true 10% (on the threshold) | missed promotion, true 20% |",
        "|---|---|---|---|---|---|---|",
    ]
    for (scenario, (r, m)), tally in results.items():
        for confidence in CONFIDENCES:
            rates = [tally.rate(confidence, c) for c in CHANGES]
            cells = [_pct(rates[0]), _pct(rates[1]), _pct(rates[2]), _pct(1 - rates[3])]
            lines.append(f"| {scenario} | {r} x {m} | {confidence} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=500, help="trials per scenario, shape and true change")
    parser.add_argument("--shapes", default="3x4,6x4,10x4", help="repetitions x requests per run, comma-separated")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated: " + ", ".join(SCENARIOS))
    parser.add_argument(
        "--coverage-only",
        action="store_true",
        help="the intervals' coverage alone (no verdicts, no promotion table): the same intervals, a third of the time",
    )
    args = parser.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    scenarios = args.scenarios.split(",")
    start = time.perf_counter()
    results = run(
        scenarios,
        shapes,
        CHANGES,
        args.trials,
        progress=True,  # type: ignore[arg-type]
        coverage_only=args.coverage_only,
    )
    elapsed = time.perf_counter() - start
    print("command: " + " ".join([".venv/bin/python", "bench/stat_coverage.py", *sys.argv[1:]]))
    print(
        f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; elapsed {elapsed:.0f} s; "
        f"{args.trials} trials per scenario, shape and true change; threshold 10%\n"
    )
    print(tables(results, promotion=not args.coverage_only))


if __name__ == "__main__":
    main()
