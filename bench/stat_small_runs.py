"""Small-sample corrections to the default interval, measured: can 3 runs of mostly run-to-run noise cover 95 %?

The default run-level interval (the adjusted two-stage bootstrap, ``analyze/stats.py``) covers about
91-92 % at 3 runs x 4 requests when the noise is mostly between runs (``bench/stat_coverage.py``,
run-heavy). This script measures candidate corrections on the same synthetic trials (a request's value
``5 s x run factor x request factor``, both lognormal, true ratio 1) without changing ``analyze``:

- ``base``: the adjusted two-stage bootstrap as ``analyze`` draws it (its centre, rescaled run effects
  and residuals from ``_adjusted_components``), percentile interval, numpy's generator for the draws;
- ``smoothed``: the same, each drawn run effect plus normal noise of the effects' own spread, rescaled
  so its variance is unchanged (a smoothed bootstrap: more than 3 possible run effects);
- ``satt-t``: run effects widened so the resampled variance is the Welch-Satterthwaite t's: with the
  two arms' relative between-run (``a``) and within-run (``b``) variances of their means,
  ``nu = (sum a + sum b)^2 / sum(a^2 / (k - 1) + b^2 / (N - k))`` and ``g = t_nu / z``, effects are
  scaled by ``sqrt(1 + (g^2 - 1) (sum a + sum b) / sum a)``;
- ``satt-half``: half that widening of the variance.

Each is measured for the statistic ``analyze`` uses (the pooled ``median``) and for the ``mean``.

    .venv/bin/python bench/stat_small_runs.py --trials 500
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evidence_kit.analyze.stats import _adjusted_components, seed_for  # noqa: E402

SCENARIOS = {"mixed": (0.03, 0.05), "run-heavy": (0.05, 0.02), "noisy": (0.06, 0.10), "very-noisy": (0.10, 0.20), "request-only": (0.0, 0.05)}
VARIANTS = ("base", "smoothed", "satt-t", "satt-half")
Z = 1.959963984540054
RESAMPLES = 2000


def t_975(nu: float) -> float:
    """Student's t 0.975 quantile by the Cornish-Fisher expansion (within 0.002 of the table from nu = 3)."""
    z = Z
    g = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(gi / nu ** (i + 1) for i, gi in enumerate(g))


def widening(arms: list[tuple[float, np.ndarray, np.ndarray]], share: float) -> float:
    """The factor on the run effects for ``satt-t`` (share 1) and ``satt-half`` (share 0.5)."""
    between = within = denominator = 0.0
    for centre, effects, residuals in arms:
        k, n = len(effects), len(residuals)
        a = float(np.mean(effects**2)) / (k * centre * centre)
        b = float(np.mean(residuals**2)) / (n * centre * centre)
        between, within = between + a, within + b
        denominator += a * a / (k - 1) + (b * b / (n - k) if n > k else 0.0)
    if between == 0.0:
        return 1.0
    g = t_975((between + within) ** 2 / denominator) / Z
    return math.sqrt(1 + share * (g * g - 1) * (between + within) / between)


def resampled(arm: tuple[float, np.ndarray, np.ndarray], size: int, rng: np.random.Generator, variant: str, factor: float, stat: str) -> np.ndarray:
    centre, effects, residuals = arm
    k = len(effects)
    drawn = effects[rng.integers(k, size=(RESAMPLES, k))] * factor
    if variant == "smoothed":
        spread = math.sqrt(float(np.mean(effects**2)))
        drawn = (drawn + spread * rng.normal(size=drawn.shape)) / math.sqrt(2.0)
    values = centre + drawn[:, :, None] + residuals[rng.integers(len(residuals), size=(RESAMPLES, k, size))]
    flat = values.reshape(RESAMPLES, k * size)
    return np.median(flat, axis=1) if stat == "median" else np.mean(flat, axis=1)


def cell(scenario: str, runs: int, size: int, trials: int, stat: str) -> dict[str, float]:
    run_sd, request_sd = SCENARIOS[scenario]
    covered = dict.fromkeys(VARIANTS, 0)
    intervals = 0
    for index in range(trials):
        rng = np.random.default_rng(seed_for("bench/stat_small_runs", scenario, runs, size, index))
        arms = {
            phase: [list(5.0 * math.exp(rng.normal(0, run_sd)) * np.exp(rng.normal(0, request_sd, size))) for _ in range(runs)]
            for phase in ("before", "candidate", "restored")
        }
        parts = {phase: tuple(np.asarray(x) if i else x for i, x in enumerate(_adjusted_components(values))) for phase, values in arms.items()}
        for control in ("before", "restored"):
            intervals += 1
            pair = [parts["candidate"], parts[control]]
            for variant in VARIANTS:
                factor = {"satt-t": 1.0, "satt-half": 0.5}.get(variant)
                scale = widening(pair, factor) if factor is not None else 1.0
                draws = np.random.default_rng(seed_for("bench/stat_small_runs/draws", scenario, runs, index, control))
                ratios = resampled(pair[0], size, draws, variant, scale, stat) / resampled(pair[1], size, draws, variant, scale, stat)
                low, high = np.quantile(ratios, [0.025, 0.975])
                covered[variant] += bool(low <= 1.0 <= high)
    return {variant: covered[variant] / intervals for variant in VARIANTS} | {"intervals": intervals}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=500, help="trials per cell (two intervals each)")
    parser.add_argument(
        "--cells",
        default="mixed:3,run-heavy:3,noisy:3,very-noisy:3,request-only:3,run-heavy:4,mixed:6,run-heavy:6,noisy:6,very-noisy:6,run-heavy:10",
        help="scenario:runs, comma-separated (4 requests per run)",
    )
    parser.add_argument("--stats", default="median,mean", help="median (what analyze uses), mean")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"load average at start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print("| statistic | scenario | R x M | intervals | " + " | ".join(VARIANTS) + " |")
    print("|---|---|---|---|" + "---|" * len(VARIANTS))
    for stat in args.stats.split(","):
        for spec in args.cells.split(","):
            scenario, runs = spec.split(":")
            result = cell(scenario, int(runs), 4, args.trials, stat)
            print(
                f"| {stat} | {scenario} | {runs} x 4 | {result['intervals']:,} | " + " | ".join(f"{100 * result[v]:.1f}%" for v in VARIANTS) + " |",
                flush=True,
            )
    print(f"{time.perf_counter() - started:.0f} s; load average at end: {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
