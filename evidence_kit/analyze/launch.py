"""Statistics v4's interval: the engine launch, not the run, as the unit that repeats.

Every run of an arm shares one engine process and one stretch of time, so an arm (a *block* of the
design) carries one launch effect that no number of its runs averages away. The run-level interval of v3
treats runs as independent and undercovers as runs are added (73 % at 10 runs under 3 % launch noise;
docs/analysis.md). This interval adds the between-launch variance, estimated from the blocks' own
disagreement, and reads a t quantile with the degrees of freedom that estimate carries:

- **Each block** gives its statistic ``s`` (pooled over its runs) and the relative variance of that
  statistic from its runs, ``v = var(run statistics) / k / s^2``, with ``k - 1`` degrees of freedom.
- **The block variance** ``B`` (relative) is the variance of one block's statistic, launch and runs
  together, read off the blocks' disagreement: the control blocks about their least-squares line over the
  arms' positions (three or more control blocks; two, as in A/B/A and A/B/B/A, about their mean: the
  before against the restored), and the candidate blocks about their mean. ``B = SS / d``: ``SS`` the
  squared relative residuals, ``d`` their degrees of freedom (A/B/A: 1; A/B/B/A and A/B/A/B/A: 2). Nothing
  is subtracted for the runs' own share: an estimate clipped at zero would call the launch noise absent
  exactly when the few blocks happened to agree. A design with ``d = 0`` has no estimate.
- **A comparison** of the pooled candidate ``a`` (``n_B`` blocks) with a control ``b`` (one block, or the
  drift-corrected control ``sum w_j s_j``, the line's value where the candidate ran) has
  ``V_a = a^2 (v_a + B / n_B)`` and ``V_b = sum w_j^2 s_j^2 max(B, v_j)``: a control block's statistic varies
  at least as much as its own runs show, even where the blocks happened to agree; the interval is Fieller's
  ``{rho : (a - rho b)^2 <= q^2 (V_a + rho^2 V_b)}`` with ``q`` Student's t at Satterthwaite's degrees of
  freedom of ``a - rho b`` (rounded down), computed with + - x / and sqrt only. In those degrees of freedom
  the block part enters at ``d / m_d`` times its estimate, ``m_d`` the median of chi-square with ``d``
  degrees of freedom (Wilson & Hilferty's ``d (1 - 2 / (9 d))^3``): Satterthwaite's count is otherwise
  too generous exactly when a 1- or 2-degree-of-freedom estimate came out small, and the interval
  undercovered (91 % at 10 runs under 3 % launch noise in A/B/A; 94 % with it; docs/analysis.md).
- **Its p-value** against a threshold ratio ``rho0`` is the one-sided t tail of
  ``(a - rho0 b) / sqrt(V_a + rho0^2 V_b)`` in the improving direction: at most 2.5 % exactly when the 95 %
  interval lies wholly beyond ``rho0``, so one test reads both ways.

Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .student import t_one_sided_tail, t_quantile

__all__ = ["BlockEstimate", "LaunchVariance", "Comparison4", "block_estimate", "launch_variance", "compare", "control_weights", "chi2_median"]

Statistic = Callable[[Sequence[float]], float | None]


@dataclass(frozen=True)
class BlockEstimate:
    """One block's (or the pooled candidate's) statistic, its runs' relative variance and their degrees of freedom."""

    seq: float
    value: float
    rel_var: float
    df: int


@dataclass(frozen=True)
class LaunchVariance:
    """The relative variance of one block's statistic (launch and runs) and its degrees of freedom (0: not estimable)."""

    variance: float
    df: int


@dataclass(frozen=True)
class Comparison4:
    """The candidate against one control: the ratio, its interval ends, degrees of freedom and p-value."""

    ratio: float | None
    low: float | None
    high: float | None
    df: int
    p_value: float | None


def block_estimate(runs: Sequence[Sequence[float]], of: Statistic, seq: float = 0.0) -> BlockEstimate | None:
    """A block's estimate from its runs' values; None without two runs with values or with a zero statistic."""
    kept = [list(run) for run in runs if run]
    value = of([v for run in kept for v in run])
    per_run = [of(run) for run in kept]
    if len(kept) < 2 or not value or any(s is None for s in per_run):
        return None
    # Relative to the block's statistic before squaring: times of 1e-200 s or 1e200 s neither underflow nor overflow.
    stats = [float(s) / value for s in per_run if s is not None]
    centre = math.fsum(stats) / len(stats)
    variance = math.fsum((s - centre) * (s - centre) for s in stats) / (len(stats) - 1) / len(stats)
    return BlockEstimate(seq=seq, value=value, rel_var=variance, df=len(stats) - 1)


def control_weights(seqs: Sequence[float], at: float) -> list[float]:
    """The weights ``w_j`` of the control blocks in the control they give at position ``at``: the least-squares
    line's value with three or more blocks, their mean with two (or one)."""
    n = len(seqs)
    if n < 3:
        return [1 / n] * n
    mean_seq = math.fsum(seqs) / n
    sxx = math.fsum((s - mean_seq) * (s - mean_seq) for s in seqs)
    return [1 / n + (at - mean_seq) * (s - mean_seq) / sxx for s in seqs]


def _residuals(blocks: Sequence[BlockEstimate], by_line: bool) -> tuple[float, int]:
    """(squared relative residuals, their degrees of freedom) of one role's blocks about their line or mean."""
    n = len(blocks)
    if n < 2:
        return 0.0, 0
    # In deviations from the first block (exactly 0 for a tie) and fitted from their centre, so blocks that agree
    # leave residuals of exactly 0, not the round-off of a line through them (1e-32: a zero-width interval).
    deviations = [b.value / blocks[0].value - 1 for b in blocks]
    centre = math.fsum(deviations) / n
    line = by_line and n >= 3
    slope = 0.0
    mean_seq = math.fsum(b.seq for b in blocks) / n
    if line:
        sxx = math.fsum((b.seq - mean_seq) * (b.seq - mean_seq) for b in blocks)
        slope = math.fsum((b.seq - mean_seq) * (d - centre) for b, d in zip(blocks, deviations)) / sxx
    residuals = [d - centre - slope * (b.seq - mean_seq) for b, d in zip(blocks, deviations)]
    return math.fsum((r / (1 + centre)) ** 2 for r in residuals), n - (2 if line else 1)


def launch_variance(controls: Sequence[BlockEstimate], candidates: Sequence[BlockEstimate]) -> LaunchVariance:
    """The relative variance of one block's statistic, from the blocks' disagreement (module docstring)."""
    ss_a, d_a = _residuals(controls, by_line=True)
    ss_b, d_b = _residuals(candidates, by_line=False)
    df = d_a + d_b
    return LaunchVariance(variance=(ss_a + ss_b) / df if df else 0.0, df=df)


def chi2_median(df: int) -> float:
    """The median of chi-square with ``df`` degrees of freedom, Wilson & Hilferty's ``df (1 - 2 / (9 df))^3``."""
    shrink = 1 - 2 / (9 * df)
    return df * shrink * shrink * shrink


def _satterthwaite(parts: Sequence[tuple[float, int]]) -> int:
    """Satterthwaite's degrees of freedom of a sum of variance components (each with its own), rounded down."""
    total = math.fsum(c for c, _ in parts)
    denominator = math.fsum(c * c / d for c, d in parts if c > 0 and d > 0)
    count = total * total / denominator if total > 0 and denominator > 0 else math.nan
    if not math.isfinite(count):  # no spread, or one so large its square overflows: the fewest the parts have
        return min((d for _, d in parts if d > 0), default=1)
    return max(1, int(math.floor(count + 1e-9)))


def compare(
    candidate: BlockEstimate,
    candidate_blocks: int,
    controls: Sequence[BlockEstimate],
    weights: Sequence[float],
    launch: LaunchVariance,
    *,
    level: float = 0.95,
    threshold_ratio: float | None = None,
    higher_is_better: bool = False,
) -> Comparison4:
    """The pooled candidate against the control ``sum w_j s_j``, with the launch variance carried in."""
    a = candidate.value
    b = math.fsum(w * c.value for w, c in zip(weights, controls))
    if launch.df == 0 or b == 0:
        return Comparison4(ratio=a / b if b else None, low=None, high=None, df=0, p_value=None)
    ratio = a / b
    # In units of the control (a ratio's interval is the same in any): squares of times the contract allows,
    # 1e-200 s or 1e200 s, neither underflow to 0 nor overflow.
    a, b, values = ratio, 1.0, [c.value / b for c in controls]
    var_a = a * a * (candidate.rel_var + launch.variance / candidate_blocks)
    var_b, control_parts = _control_variance(ratio, values, weights, controls, launch)
    if var_a == 0 and var_b == 0:
        # No spread anywhere (ties: every run the same): that is no estimate of the noise, not a certainty.
        return Comparison4(ratio=ratio, low=None, high=None, df=0, p_value=None)
    blocks = a * a * launch.variance / candidate_blocks + control_parts[0]
    parts = [(a * a * candidate.rel_var, candidate.df), (blocks * launch.df / chi2_median(launch.df), launch.df), *control_parts[1]]
    df = _satterthwaite(parts)
    q = t_quantile(level, df)
    low, high = _fieller(a, b, var_a, var_b, q)
    p_value = None
    if threshold_ratio is not None:
        spread = math.sqrt(var_a + threshold_ratio * threshold_ratio * var_b)
        pivot = (a - threshold_ratio * b) / spread if spread > 0 else math.copysign(math.inf, a - threshold_ratio * b)
        improving = pivot > 0 if higher_is_better else pivot < 0
        tail = 0.0 if math.isinf(pivot) else t_one_sided_tail(pivot, df)
        # To 12 significant digits, as the quantile: a last-bit difference of a platform's atan cannot move it.
        p_value = float(f"{tail if improving else 1 - tail:.12g}")
    return Comparison4(ratio=ratio, low=low, high=high, df=df, p_value=p_value)


def _control_variance(
    ratio: float, values: Sequence[float], weights: Sequence[float], controls: Sequence[BlockEstimate], launch: LaunchVariance
) -> tuple[float, tuple[float, list[tuple[float, int]]]]:
    """``V_b`` (in units of the control) and its parts at ``ratio``: the launch estimate's, and each block's excess.

    A control block's statistic varies at least as much as its own runs show: blocks whose statistics happen to
    agree (an estimate of 0) do not make a control measured to +-20 % by its runs known exactly. The launch part
    carries the launch estimate's degrees of freedom; what a block's own runs add above it, that block's runs'."""
    var_b = math.fsum(w * w * v * v * max(launch.variance, c.rel_var) for w, v, c in zip(weights, values, controls))
    launch_part = ratio * ratio * launch.variance * math.fsum(w * w * v * v for w, v in zip(weights, values))
    above = [
        (ratio * ratio * w * w * v * v * (c.rel_var - launch.variance), c.df)
        for w, v, c in zip(weights, values, controls)
        if c.rel_var > launch.variance
    ]
    return var_b, (launch_part, above)


def _fieller(a: float, b: float, var_a: float, var_b: float, q: float) -> tuple[float | None, float | None]:
    """The roots of ``(a - rho b)^2 = q^2 (var_a + rho^2 var_b)``; (None, None) when the set is unbounded or reaches below 0."""
    q2 = q * q
    lead = b * b - q2 * var_b
    if lead <= 0 or math.isinf(q):
        return None, None
    half = math.sqrt(a * a * b * b - lead * (a * a - q2 * var_a))
    low, high = (a * b - half) / lead, (a * b + half) / lead
    return (None, None) if low < 0 else (low, high)
