"""The statistics every published figure is made of: pure functions, no I/O.

- ``median``: the ordinary median (mean of the two middle values for an even count),
  used for *pooled* statistics.
- ``nearest_rank``: the nearest-rank percentile, the smallest value with at least
  ``p`` percent of the values at or below it, used for *per-run* statistics.
- ``bootstrap_ratio_interval``: a seeded percentile-bootstrap interval of the ratio
  of a statistic of two arms. By default two-level (hierarchical): runs are
  resampled within each arm, then requests (Kalibera & Jones: the run, not the
  request, is the unit that repeats), as the adjusted two-stage bootstrap (Davison
  & Hinkley 1997, section 3.8): run effects and request residuals rescaled to the
  estimated run-to-run and request-to-request variances, so neither is counted
  twice. The plain two-level bootstrap (raw runs, raw requests within them) and the
  request-level one (every request resampled as if independent) are kept for
  comparison.
- ``detectable_change``: the smallest change an interval of that width resolves.

Every interval is reproducible bit for bit from the same inputs on any platform
(its random numbers come from SplitMix64, not from Python's ``random``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np

__all__ = [
    "median",
    "mean",
    "nearest_rank",
    "change",
    "SplitMix64",
    "bootstrap_ratio_interval",
    "bootstrap_ratios",
    "splitmix64_block",
    "detectable_change",
    "statistic",
    "STATISTICS",
    "seed_for",
    "Z_LEVEL",
    "Z_POWER",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_LEVEL",
    "METHODS",
    "DEFAULT_METHOD",
]

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_LEVEL = 0.95
_MASK64 = (1 << 64) - 1
# Standard normal quantiles for a two-sided 95 % interval and 80 % power.
Z_LEVEL = 1.959963984540054
Z_POWER = 0.8416212335729143
STATISTICS: tuple[str, ...] = ("median", "p90", "p99")
CHUNK_VALUES = 1 << 20  # random numbers drawn per chunk of resamples (a few tens of MB of working arrays)
Statistic = Callable[[Sequence[float]], float | None]


def median(values: Sequence[float]) -> float | None:
    """Ordinary median; ``None`` for no values."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return None
    mid = n // 2
    if n % 2:
        return ordered[mid]
    low, high = ordered[mid - 1], ordered[mid]
    both = (low + high) / 2
    # Two values above 9e307 overflow their sum; halved first they cannot (and below that, halving first would
    # round a subnormal's last bit: the sum halved is kept wherever it is finite, the same bits as ever).
    return both if math.isfinite(both) else low / 2 + high / 2


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean (exactly rounded sum); ``None`` for no values. Goodput's share is the mean of 0/1 values."""
    return math.fsum(values) / len(values) if values else None


def nearest_rank(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile ``p`` (0 < p <= 100): the value at rank ceil(p/100 * n)."""
    if not 0 < p <= 100:
        raise ValueError("p must be in (0, 100]")
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return None
    return ordered[_rank(n, p) - 1]


def change(candidate: float | None, control: float | None) -> float | None:
    """Relative change of the candidate against a control: ``candidate / control - 1``.

    For latencies a negative change is faster. ``None`` when either side is
    missing, the control is zero or the ratio is not finite (a subnormal control:
    the analysis document is JSON, which has no infinity).
    """
    if candidate is None or control is None or control == 0:
        return None
    relative = candidate / control - 1
    return relative if math.isfinite(relative) else None


def statistic(name: str) -> Statistic:
    """The pooled statistic a rule or guardrail names: ``median`` (ordinary), ``p90``/``p99`` (nearest rank),
    or ``mean`` (goodput's share)."""
    if name == "median":
        return median
    if name == "mean":
        return mean
    if name in ("p90", "p99"):
        p = int(name[1:])
        return lambda values: nearest_rank(values, p)
    raise ValueError(f"unknown statistic {name!r}")


class SplitMix64:
    """SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, identical everywhere."""

    def __init__(self, seed: int):
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (Lemire's multiply-shift; bias below 2**-50 for small n)."""
        return (self.next() * n) >> 64


def seed_for(*parts: object) -> int:
    """A 64-bit seed derived from the parts' text, so one bundle always draws the same resamples."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _percentile_interval(ratios: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    return _nearest_rank_of(ratios, tail), _nearest_rank_of(ratios, 100 - tail)


def _nearest_rank_of(values: np.ndarray, p: float) -> float:
    """:func:`nearest_rank` of a non-empty array of floats, without a list: numpy's stable sort orders them as
    ``sorted`` does (equal values, such as 0.0 and -0.0, in their original order), so it is the same element."""
    if bool(np.isnan(values).any()):  # NaN has no order: sorted's placement of it is not numpy's
        value = nearest_rank(values.tolist(), p)
        assert value is not None
        return value
    ordered = np.sort(values, kind="stable")
    return float(ordered[_rank(ordered.shape[0], p) - 1])


_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


_BLOCK = 1 << 14  # outputs mixed at a time: a 128 KiB scratch array, reused, instead of one as large as the block


def splitmix64_block(seed: int, count: int, start: int = 0) -> np.ndarray:
    """Outputs ``start + 1`` to ``start + count`` of ``SplitMix64(seed)``, computed at once (output k mixes
    ``seed + k x gamma``): the very numbers :meth:`SplitMix64.next` gives one by one."""
    # The same arithmetic (uint64, wrapping) in place, a slice of _BLOCK at a time, the states stepped by
    # _BLOCK x gamma: no temporary as large as the block, whose fresh pages cost more than the arithmetic
    # (verify recomputes some 10 million of these for one decision).
    z = np.empty(count, dtype=np.uint64)
    state = np.arange(start + 1, start + min(_BLOCK, count) + 1, dtype=np.uint64)
    state *= _GAMMA
    state += np.uint64(seed & _MASK64)
    step = np.uint64((_BLOCK * 0x9E3779B97F4A7C15) & _MASK64)
    scratch = np.empty(state.shape[0], dtype=np.uint64)
    for first in range(0, count, _BLOCK):
        n = min(_BLOCK, count - first)
        if first:
            state += step
        out, shifted = z[first : first + n], scratch[:n]
        np.copyto(out, state[:n])
        for shift, factor in ((30, _M1), (27, _M2)):
            np.right_shift(out, np.uint64(shift), out=shifted)
            out ^= shifted
            out *= factor
        np.right_shift(out, np.uint64(31), out=shifted)
        out ^= shifted
    return z


def _below(z: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """``(z x n) >> 64`` per element, exactly (:meth:`SplitMix64.below`), for ``1 <= n < 2**32`` (one ``n`` for
    every element, or an array of them that broadcasts to ``z``'s shape), as uint64 (each below ``n``: an int64
    view of it indexes), computed in two arrays."""
    n = np.asarray(n, dtype=np.uint64)
    high = z >> np.uint64(32)
    high *= n
    low = z & _LOW32
    low *= n
    low >>= np.uint64(32)
    high += low
    high >>= np.uint64(32)
    return high


def _rank(count: int, p: float) -> int:
    """The 1-based nearest rank of percentile ``p`` among ``count`` values (:func:`nearest_rank`'s rule)."""
    # p * n / 100 in exact integer arithmetic where possible, so 50 % of 4 is rank 2, not 2.0000001.
    return max(1, math.ceil(round(p * count, 9) / 100))


def _rank_index(counts: np.ndarray, p: float) -> np.ndarray:
    """0-based nearest-rank index of percentile ``p`` for each count, from :func:`nearest_rank`'s rule."""
    unique, where = np.unique(counts, return_inverse=True)
    ranks = np.array([_rank(int(c), p) - 1 for c in unique], dtype=np.int64)
    indices: np.ndarray = ranks[where.reshape(-1)]
    return indices


def _row_statistic(values: np.ndarray, counts: np.ndarray | int, name: str) -> np.ndarray:
    """``statistic(name)`` of each row's first ``counts[row]`` values (the rest is padding, +inf); ``counts`` one
    number when every row holds as many."""
    if name == "mean":
        # Summed strictly in order (cumsum), not numpy's pairwise sum: the same on every platform.
        means: np.ndarray = np.cumsum(np.where(np.isinf(values), 0.0, values), axis=1)[:, -1] / counts
        return means
    ordered = np.sort(values, axis=1)
    if isinstance(counts, int):
        return _fixed_row_statistic(ordered, counts, name)
    if name == "median":
        mid = counts // 2
        upper = np.take_along_axis(ordered, mid[:, None], axis=1)[:, 0]
        lower = np.take_along_axis(ordered, np.maximum(mid - 1, 0)[:, None], axis=1)[:, 0]
        return np.where(counts % 2 == 1, upper, (lower + upper) / 2)
    index = _rank_index(counts, float(name[1:]))
    return np.take_along_axis(ordered, index[:, None], axis=1)[:, 0]


def _fixed_row_statistic(ordered: np.ndarray, count: int, name: str) -> np.ndarray:
    """:func:`_row_statistic` of sorted rows that each hold ``count`` values: the same elements and arithmetic."""
    if name == "median":
        mid = count // 2
        return ordered[:, mid].copy() if count % 2 == 1 else (ordered[:, max(mid - 1, 0)] + ordered[:, mid]) / 2
    column: np.ndarray = ordered[:, _rank(count, float(name[1:])) - 1].copy()
    return column


METHODS: tuple[str, ...] = ("run-t", "run", "run-plain", "request")
DEFAULT_METHOD = "run-t"  # the interval every verdict, guardrail and detectable change is read off
STUDENTISED_LEVEL = 0.95  # the share of |T*| at or below the studentised interval's quantile
UNIFORMS_PER_NORMAL = 12  # a run effect's Gaussian draw: the sum of 12 uniforms less 6 (variance 1)


def _adjusted_components(runs: Sequence[Sequence[float]]) -> tuple[float, list[float], list[float]]:
    """An arm's centre, its run effects and its residuals rescaled to the estimated variance components
    (the adjusted two-stage bootstrap, Davison & Hinkley 1997, section 3.8), on the linear scale, with
    + - x / and sqrt only (each IEEE-exact) and every sum a :func:`math.fsum` (exactly rounded), so the
    figures are the same on any platform.

    Run ``i`` (``n_i`` values ``x_ij``) has mean ``m_i = fsum(x_i.) / n_i``; the centre is
    ``c = fsum(m) / k``, effects ``e_i = m_i - c``, residuals ``r_ij = x_ij - m_i`` (run by run, in
    order). Components: ``s_w^2 = fsum(r^2) / (N - k)`` (0 when ``N = k``: every run a single value) and
    ``s_b^2 = max(0, fsum(e^2) / (k - 1) - s_w^2 / n_h)``, ``n_h = k / fsum(1 / n_i)`` (0 for one run:
    with no second run there is no between-run estimate, and the method falls back to resampling the
    run's rescaled residuals). Effects are scaled by ``sqrt(s_b^2 / (fsum(e^2) / k))``, residuals by
    ``sqrt(s_w^2 / (fsum(r^2) / N))``: a value drawn uniformly from the rescaled effects (residuals) has
    variance ``s_b^2`` (``s_w^2``). A set with no spread stays all zero.
    """
    # On the scale of the largest value, a power of two (each step exact): squares of values far from 1
    # neither overflow (fsum raised at 1e308) nor underflow to zero (1e-300s lost all their spread).
    peak = max((abs(x) for run in runs for x in run), default=0.0)
    exponent = math.frexp(peak)[1] if math.isfinite(peak) and peak > 0 else 0
    if exponent:
        runs = [[math.ldexp(x, -exponent) for x in run] for run in runs]
    means = [math.fsum(run) / len(run) for run in runs]
    k, sizes = len(runs), [len(run) for run in runs]
    total = sum(sizes)
    centre = math.fsum(means) / k
    effects = [m - centre for m in means]
    residuals = [x - m for run, m in zip(runs, means, strict=True) for x in run]
    effect_square, residual_square = math.fsum(e * e for e in effects), math.fsum(r * r for r in residuals)
    within = residual_square / (total - k) if total > k else 0.0
    between = 0.0
    if k > 1:
        harmonic = k / math.fsum(1 / n for n in sizes)
        between = max(0.0, effect_square / (k - 1) - within / harmonic)
    effects, residuals = _scaled(effects, between, effect_square), _scaled(residuals, within, residual_square)
    if exponent:
        centre, effects, residuals = _ldexp(centre, exponent), [_ldexp(e, exponent) for e in effects], [_ldexp(r, exponent) for r in residuals]
    return centre, effects, residuals


def _ldexp(value: float, exponent: int) -> float:
    """``value x 2**exponent``, infinite where it overflows (a resample that holds it has no finite ratio)."""
    try:
        return math.ldexp(value, exponent)
    except OverflowError:
        return math.copysign(math.inf, value)


def _scaled(values: list[float], variance: float, square: float) -> list[float]:
    """``values`` times ``sqrt(variance / (square / len(values)))``; all zero when either is zero."""
    mean_square = square / len(values)
    if mean_square == 0.0 or variance == 0.0:  # a square of subnormals over a count can round to zero
        return [0.0] * len(values)
    factor = math.sqrt(variance / mean_square)
    return [v * factor for v in values]


class _Arm:
    """One arm's values for resampling: its runs (run-level) or one flat sample (request-level)."""

    def __init__(self, runs: Sequence[Sequence[float]], method: str):
        kept = [[float(v) for v in run] for run in runs if run]
        by_run = method != "request"
        self.runs = kept if by_run else [[v for run in kept for v in run]]
        self.by_run, self.adjusted = by_run, method == "run"
        self.width = max((len(run) for run in self.runs), default=0)
        # Per resample: one number per run slot (which run), then `width` per slot (which requests).
        self.draws = (len(self.runs) if by_run else 0) + len(self.runs) * self.width

    def empty(self) -> bool:
        """Nothing to resample: no values, one value, or (run-level) fewer than two runs with values. One run
        says nothing of how runs differ (its interval would be the request-level one under another name), and
        one value nothing of how requests do (its interval is the point, 0.750-0.750)."""
        values = sum(len(run) for run in self.runs)
        return values < 2 or (self.by_run and len(self.runs) < 2)

    @cached_property
    def _components(self) -> tuple[float, np.ndarray, np.ndarray]:
        """The adjusted method's centre, rescaled effects and residuals: once per arm, not once per chunk."""
        centre, effects, residuals = _adjusted_components(self.runs)
        return centre, np.array(effects), np.array(residuals)

    @cached_property
    def _table(self) -> np.ndarray:
        """The runs as rows padded with +inf (the plain and request-level methods draw from it)."""
        table = np.full((len(self.runs), self.width), np.inf)
        for i, run in enumerate(self.runs):
            table[i, : len(run)] = run
        return table

    def pooled(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray | int]:
        """The pooled values of every resample (rows padded with +inf) and how many each holds (one number when
        every resample holds as many)."""
        if not self.by_run:  # one flat sample, no padding: each resample draws `width` of its values
            return self._table[0][_below(z, self.width).view(np.int64)], self.width
        slots = len(self.runs)
        sizes = np.array([len(run) for run in self.runs], dtype=np.int64)
        chosen = _below(z[:, :slots], slots).astype(np.int64)
        z = z[:, slots:].reshape(z.shape[0], slots, self.width)
        chosen_sizes = sizes[chosen]  # (resamples, slots)
        if self.adjusted:
            centre, effects, residuals = self._components
            # Residuals are drawn from the arm's whole pool (every run's), not from the drawn run's.
            picks = _below(z, len(residuals)).astype(np.int64)
            values = (centre + effects[chosen])[:, :, None] + residuals[picks]
        else:
            picks = _below(z, chosen_sizes[:, :, None]).astype(np.int64)
            values = self._table[chosen[:, :, None], picks]
        used = np.arange(self.width)[None, None, :] < chosen_sizes[:, :, None]
        values = np.where(used, values, np.inf).reshape(z.shape[0], slots * self.width)
        return values, chosen_sizes.sum(axis=1)


def bootstrap_ratios(
    candidate_runs: Sequence[Sequence[float]],
    control_runs: Sequence[Sequence[float]],
    seed: int,
    *,
    method: str = "run",
    statistic_name: str = "median",
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> np.ndarray | None:
    """The ``resamples`` bootstrap ratios ``statistic(candidate) / statistic(control)``, in draw order.

    Each arm is a list of runs, each run the values of its requests (runs without
    values are left out). Methods, per arm:

    - ``"run"`` (the default), the adjusted two-stage bootstrap: with the arm's centre ``c``, rescaled
      run effects ``e~`` and rescaled residuals ``r~`` of :func:`_adjusted_components`, a resample draws
      as many run slots as the arm has runs, each an effect ``e~_i*`` (``i*`` with replacement), and
      within each slot as many values as run ``i*`` holds, each ``(c + e~_i*) + r~_j*``, ``j*`` drawn
      with replacement from *all* the arm's residuals (pooled across its runs);
    - ``"run-plain"``: the same draws of runs and requests, but raw: run ``i*``'s own values, drawn with
      replacement within it (resampling both levels raw counts the request noise twice: it overcovers
      with many runs and undercovers when the runs differ most);
    - ``"request"``: the arm's requests pooled and drawn with replacement, as if independent.

    The random numbers are SplitMix64's outputs in a fixed layout: resample ``i``
    takes the ``i``-th block of ``draws(candidate) + draws(control)`` outputs; within
    an arm's part, the run-level methods first take one output per run slot (which
    run, ``below(runs)``), then ``width`` outputs per slot, ``width`` being the arm's
    largest run: which request, ``below(size of the drawn run)`` (``run-plain``) or which
    residual, ``below(number of the arm's values)`` (``run``); those past the drawn run's
    size are unused. The request-level method takes ``width`` (= the arm's values)
    outputs, ``below(width)`` each. ``None`` when an arm has fewer than two values,
    (run-level) fewer than two runs with values, a resampled control statistic is zero or
    below, a candidate one below zero, or a ratio not finite.
    """
    if method not in METHODS or method == "run-t":  # the studentised interval has no percentile ratios
        raise ValueError(f"unknown interval method {method!r}" + (" for bootstrap_ratios" if method == "run-t" else ""))
    statistic(statistic_name)  # refuses an unknown name
    cand, ctrl = _Arm(candidate_runs, method), _Arm(control_runs, method)
    if cand.empty() or ctrl.empty():
        return None
    draws = cand.draws + ctrl.draws
    # Resamples in chunks of about CHUNK_VALUES drawn numbers, so memory stays flat however many requests an
    # arm holds; chunk c draws outputs c x rows x draws + 1 onwards: the same numbers as one block.
    rows = max(1, min(resamples, CHUNK_VALUES // max(1, draws)))
    numerators, denominators = [], []
    for first in range(0, resamples, rows):
        count = min(rows, resamples - first)
        z = splitmix64_block(seed, count * draws, first * draws).reshape(count, draws)
        cand_values, cand_counts = cand.pooled(z[:, : cand.draws])
        ctrl_values, ctrl_counts = ctrl.pooled(z[:, cand.draws :])
        with np.errstate(over="ignore", invalid="ignore"):  # values near the float limit: no finite ratio
            numerators.append(_row_statistic(cand_values, cand_counts, statistic_name))
            denominators.append(_row_statistic(ctrl_values, ctrl_counts, statistic_name))
    numerator, denominator = np.concatenate(numerators), np.concatenate(denominators)
    # A resampled statistic of zero or below (the adjusted method's rescaled values can fall below zero) has
    # no ratio that means anything: no interval, rather than one reaching below -100 %.
    if np.any(denominator <= 0) or np.any(numerator < 0):
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        ratios: np.ndarray = numerator / denominator
    return ratios if bool(np.all(np.isfinite(ratios))) else None


def bootstrap_ratio_interval(
    candidate_runs: Sequence[Sequence[float]],
    control_runs: Sequence[Sequence[float]],
    seed: int,
    *,
    method: str = "run-t",
    statistic_name: str = "median",
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = BOOTSTRAP_LEVEL,
) -> tuple[float, float] | None:
    """Percentile-bootstrap interval of ``statistic(candidate) / statistic(control)``: the nearest-rank
    percentiles ``(1 - level) / 2`` and ``(1 + level) / 2`` of :func:`bootstrap_ratios`."""
    if method == "run-t":
        from .studentised import studentised_interval  # it builds on this module's pieces

        return studentised_interval(candidate_runs, control_runs, seed, statistic_name=statistic_name, resamples=resamples)
    ratios = bootstrap_ratios(candidate_runs, control_runs, seed, method=method, statistic_name=statistic_name, resamples=resamples)
    if ratios is None:
        return None
    return _percentile_interval(ratios, level)


def detectable_change(low: float, high: float) -> float:
    """The smallest relative change (a fraction) that data giving a 95 % ratio interval of
    ``[low, high]`` would resolve with 80 % power: the interval's half-width scaled by
    ``(z_0.975 + z_0.80) / z_0.975`` (the normal approximation behind every power table)."""
    return (high - low) / 2 * (Z_LEVEL + Z_POWER) / Z_LEVEL
