"""The default run-level interval: a studentised (bootstrap-t) Fieller interval, studentised by the runs.

Few runs carry few degrees of freedom: with 3 runs per arm the run-to-run spread is estimated from 2,
and a percentile bootstrap, whose width is that estimate's, undercovers where the noise is mostly
between runs (91 % at 3 runs; docs/benchmarks.md). The studentised interval carries that uncertainty:

- **The pivot.** For a ratio ``rho`` of the arms' statistics ``a`` (candidate) and ``b`` (control),
  ``T(rho) = (a - rho b) / sqrt(V_a + rho^2 V_b)`` (Fieller 1954), with ``V`` an arm's variance of its mean
  estimated from its *runs* alone, as Kalibera & Jones (2013) do for few repetitions: the spread of the run
  means, ``fsum((m_i - mean m)^2) / (k - 1) / k``. In a nested design that one estimate holds both the
  run-to-run and the request-to-request noise, with ``k - 1`` degrees of freedom whatever their shares.
- **Its distribution, by resampling** (Efron & Tibshirani 1993, ch. 12; Davison & Hinkley 1997, 5.2): each
  arm's bootstrap world is the adjusted two-stage model of :func:`.stats._adjusted_components` with
  Gaussian run effects of the estimated run-to-run variance ``s_b^2`` (a run effect cannot be drawn from 3
  observed ones without making a third of the resamples repeat one run, whose near-zero spread sends ``T``
  to infinity) and residuals drawn from the arm's pooled rescaled residuals. In every resample the
  statistic and ``V`` are recomputed, and ``T* = |a* - rho0 b*| / sqrt(V_a* + rho0^2 V_b*)`` is taken at the
  world's own ratio ``rho0 = mean(a*) / mean(b*)``; ``q`` is the nearest-rank 95th percentile of ``T*``.
- **The interval** is ``{rho : |T(rho)| <= q}`` for the observed statistics: the roots of
  ``(a - rho b)^2 = q^2 (V_a + rho^2 V_b)``, with only + - x / and sqrt, so it is the same on every
  platform. ``q`` takes the part of Student's t (few runs: large) and of the statistic's efficiency against
  the mean (the pooled median's variance is 1.2-1.6 times the mean's) at once.

Not estimable (``None``) where the percentile methods are not (an arm with fewer than two runs with values
or fewer than two values), and where the interval would be unbounded or reach below zero: the control's
statistic not resolved from zero (``b^2 <= q^2 V_b``), the candidate's lower end below zero, or a ``T*`` that
is infinite at the 95th percentile; and where an arm's runs all have one mean while its values vary (ties,
as goodput's 0/1 values give: 18 of 20 good in every run), whose variance estimate of 0 is no estimate of
the noise and would shrink the interval to the point ratio.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .stats import (
    BOOTSTRAP_RESAMPLES,
    CHUNK_VALUES,
    STUDENTISED_LEVEL,
    UNIFORMS_PER_NORMAL,
    _adjusted_components,
    _below,
    _ldexp,
    _nearest_rank_of,
    _row_statistic,
    splitmix64_block,
    statistic,
)

__all__ = ["studentised_interval"]

_UNIT = 2.0**-53  # a uniform in [0, 1) from the top 53 bits of an output, exactly


def _last(values: np.ndarray, axis: int) -> np.ndarray:
    """The sum along ``axis`` added strictly in order, one term at a time (what ``cumsum`` accumulates, at a
    quarter of its cost on these short axes), so every platform adds the same numbers in the same order,
    unlike numpy's pairwise ``sum``."""
    at: list[int | slice] = [slice(None)] * values.ndim
    at[axis] = 0
    total: np.ndarray = values[tuple(at)].copy()
    for i in range(1, values.shape[axis]):
        at[axis] = i
        total += values[tuple(at)]
    return total


def _variance_of_mean(means: Sequence[float]) -> float:
    """The runs' estimate of the variance of an arm's mean: ``fsum((m_i - mean)^2) / (k - 1) / k``."""
    k = len(means)
    centre = math.fsum(means) / k
    return math.fsum((m - centre) * (m - centre) for m in means) / (k - 1) / k


class _World:
    """One arm's bootstrap world, on its values scaled by a power of two (exact) so the largest is in
    [0.5, 1): squares neither overflow nor underflow whatever the units."""

    def __init__(self, runs: Sequence[Sequence[float]], statistic_name: str):
        kept = [[float(v) for v in run] for run in runs if run]
        peak = max((abs(v) for run in kept for v in run), default=0.0)
        self.exponent = math.frexp(peak)[1] if math.isfinite(peak) and peak > 0 else 0
        self.runs = [[math.ldexp(v, -self.exponent) for v in run] for run in kept]
        self.sizes = np.array([len(run) for run in self.runs], dtype=np.int64)
        self.k, self.width = len(self.runs), int(self.sizes.max(initial=0))
        self.total = int(self.sizes.sum())
        self.uneven = bool((self.sizes != self.width).any())
        self.statistic_name = statistic_name
        # Per resample: UNIFORMS_PER_NORMAL outputs per run slot (its Gaussian effect), then `width` per slot
        # (which residuals; those past the slot's run size are unused).
        self.draws = self.k * (UNIFORMS_PER_NORMAL + self.width)

    def empty(self) -> bool:
        return self.total < 2 or self.k < 2

    def varies(self) -> bool:
        """Whether the arm's values are not all one value."""
        first = self.runs[0][0]
        return any(v != first for run in self.runs for v in run)

    def observed(self) -> tuple[float | None, float]:
        """The arm's statistic of its pooled values and the runs' variance of its mean (scaled units)."""
        value = statistic(self.statistic_name)([v for run in self.runs for v in run])
        return value, _variance_of_mean([math.fsum(run) / len(run) for run in self.runs])

    def setup(self) -> None:
        centre, effects, residuals = _adjusted_components(self.runs)
        self.centre, self.residuals = centre, np.array(residuals)
        # The rescaled effects' mean square is the estimated run-to-run variance s_b^2.
        self.spread = math.sqrt(math.fsum(e * e for e in effects) / self.k)

    def resampled(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each resample's statistic and runs' variance of the mean, from its block of outputs ``z``."""
        count, k, width = z.shape[0], self.k, self.width
        normal = z[:, : k * UNIFORMS_PER_NORMAL].reshape(count, k, UNIFORMS_PER_NORMAL)
        # The top 53 bits as whole numbers (below 2**53: exact as floats, and converted from int64, which is
        # cheaper than from uint64), summed in order, then scaled by 2**-53 once: a power of two scales every
        # partial sum's rounding alike, so this is the sum of the uniforms, bit for bit.
        gauss = _last((normal >> np.uint64(11)).view(np.int64).astype(np.float64), axis=2)
        gauss *= _UNIT
        gauss -= UNIFORMS_PER_NORMAL / 2
        picks = _below(z[:, k * UNIFORMS_PER_NORMAL :].reshape(count, k, width), len(self.residuals)).view(np.int64)
        gauss *= self.spread
        gauss += self.centre
        values = self.residuals[picks]
        values += gauss[:, :, None]
        if self.uneven:
            used = np.arange(width)[None, None, :] < self.sizes[None, :, None]
            values = np.where(used, values, np.inf)
            stats = _row_statistic(values.reshape(count, k * width), self.total, self.statistic_name)
            last = (self.sizes - 1)[None, :, None].repeat(count, axis=0)
            sums = np.take_along_axis(np.cumsum(np.where(used, values, 0.0), axis=2), last, axis=2)[:, :, 0]
            means = sums / self.sizes[None, :]
        else:  # every run as long as the longest: no padding, and each run's sum is its row's, in order
            stats = _row_statistic(values.reshape(count, k * width), self.total, self.statistic_name)
            means = _last(values, axis=2) / width
        centre = _last(means, axis=1) / k
        means -= centre[:, None]
        means *= means
        return stats, _last(means, axis=1) / (k - 1) / k


def _fieller(a: float, b: float, va: float, vb: float, q: float) -> tuple[float, float] | None:
    """The ratios ``rho`` with ``(a - rho b)^2 <= q^2 (va + rho^2 vb)``; None when unbounded."""
    denominator = b * b - q * q * vb
    if not math.isfinite(q) or denominator <= 0:
        return None
    root = math.sqrt(a * a * vb + va * denominator)
    return (a * b - q * root) / denominator, (a * b + q * root) / denominator


def studentised_interval(
    candidate_runs: Sequence[Sequence[float]],
    control_runs: Sequence[Sequence[float]],
    seed: int,
    *,
    statistic_name: str = "median",
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = STUDENTISED_LEVEL,
) -> tuple[float, float] | None:
    """The studentised run-level interval of ``statistic(candidate) / statistic(control)`` (module docstring).

    The random numbers are SplitMix64's outputs in a fixed layout: resample ``i`` takes the ``i``-th block of
    ``draws(candidate) + draws(control)`` outputs; within an arm's part, first ``UNIFORMS_PER_NORMAL`` outputs
    for each run slot in turn, each ``(z >> 11) x 2**-53``, summed in order less 6 (a Gaussian draw of variance
    1; the slot's effect is ``s_b`` times it), then ``width`` outputs for each slot in turn (``width`` the arm's
    largest run): which residual, ``below(number of the arm's values)``; slot ``i`` holds as many values as
    the arm's ``i``-th run (the runs in the canonical order of ``groups.run_values``), those past it unused.
    """
    statistic(statistic_name)  # refuses an unknown name
    cand, ctrl = _World(candidate_runs, statistic_name), _World(control_runs, statistic_name)
    if cand.empty() or ctrl.empty():
        return None
    (a, va), (b, vb) = cand.observed(), ctrl.observed()
    if a is None or b is None or a < 0 or b <= 0:
        return None
    if (va == 0 and cand.varies()) or (vb == 0 and ctrl.varies()):
        # Runs of one mean whose values vary (goodput's 0/1: 18 of 20 good in every run): the runs' estimate
        # of the mean's variance is 0, not the noise, and the interval would shrink to the point ratio.
        return None
    cand.setup()
    ctrl.setup()
    draws = cand.draws + ctrl.draws
    rows = max(1, min(resamples, CHUNK_VALUES // max(1, draws)))
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for first in range(0, resamples, rows):
        count = min(rows, resamples - first)
        z = splitmix64_block(seed, count * draws, first * draws).reshape(count, draws)
        with np.errstate(over="ignore", invalid="ignore"):
            parts.append(cand.resampled(z[:, : cand.draws]) + ctrl.resampled(z[:, cand.draws :]))
    a_star, va_star, b_star, vb_star = (np.concatenate([p[i] for p in parts]) for i in range(4))
    b_mean = math.fsum(b_star.tolist())
    if not b_mean > 0 or not all(np.isfinite(x).all() for x in (a_star, va_star, b_star, vb_star)):
        return None
    rho0 = math.fsum(a_star.tolist()) / b_mean
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.sqrt(va_star + rho0 * rho0 * vb_star)
        pivot = np.abs(a_star - rho0 * b_star) / spread
    pivot = np.where(spread > 0, pivot, np.where(a_star - rho0 * b_star == 0, 0.0, np.inf))
    q = _nearest_rank_of(pivot, level * 100)
    ends = _fieller(a, b, va, vb, q)
    if ends is None or ends[0] < 0:
        return None
    shift = cand.exponent - ctrl.exponent
    low, high = _ldexp(ends[0], shift), _ldexp(ends[1], shift)
    return (low, high) if math.isfinite(low) and math.isfinite(high) else None
