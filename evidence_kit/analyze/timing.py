"""Timing reconciliation: each run's mean client TTFT and end-to-end time against the engine's own.

vLLM observes every request in two histograms, ``vllm:time_to_first_token_seconds`` and
``vllm:e2e_request_latency_seconds``; the collector journals each one's ``_sum`` and ``_count``
before and after every run (the run record's ``counters``). Their deltas give the engine's mean
over the run's window, set against the client's mean of the run's ok requests carrying the metric:
only where the histogram's count delta equals their number (a count, not the requests themselves),
from one engine process, with counters that did not go backwards, and where the gap is a finite
number. The gap (client minus engine) is time the engine does not see: the network, the API
server's HTTP handling, chat template and tokenisation, and the client. Where the rule declares a
bound, every run must be compared on both times (:func:`unchecked_runs`), or the trial does not
promote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..model.journal import Request, Run
from .report import TIMING_METRICS, ArmTiming, RunStats, TimingGap, TimingMetric

__all__ = ["HISTOGRAMS", "NOT_RECONCILABLE", "run_timing", "arm_timing", "unchecked_runs", "unchecked_text"]

# The metric -> the run record's counter names of its histogram's sum and count (model/telemetry.py).
HISTOGRAMS: dict[TimingMetric, tuple[str, str]] = {
    "ttft_s": ("ttft_seconds_sum", "ttft_seconds_count"),
    "e2e_s": ("e2e_seconds_sum", "e2e_seconds_count"),
}
NOT_RECONCILABLE = ("no-counters", "no-histogram")


def run_timing(run: Run, requests: Sequence[Request], bound_ms: float | None) -> list[TimingGap]:
    """TTFT, then end-to-end: the run's ok requests' mean against the engine's histogram mean."""
    return [_gap(run, requests, metric, bound_ms) for metric in TIMING_METRICS]


def _gap(run: Run, requests: Sequence[Request], metric: TimingMetric, bound_ms: float | None) -> TimingGap:
    values = [v for r in requests if r.ok and not r.warmup and (v := getattr(r, metric)) is not None]
    client_mean = _mean(values) if values else None

    def gap(status: str, engine_count: float | None = None) -> TimingGap:
        return TimingGap.model_validate(
            {
                "metric": metric,
                "status": status,
                "engine_count": engine_count,
                "engine_mean_s": None,
                "client_count": len(values),
                "client_mean_s": client_mean,
                "gap_ms": None,
                "beyond_bound": False,
            }
        )

    if run.counters is None:
        return gap("no-counters")
    sum_name, count_name = HISTOGRAMS[metric]
    if sum_name not in run.counters or count_name not in run.counters:
        return gap("no-histogram")
    (sum_before, sum_after), (count_before, count_after) = run.counters[sum_name], run.counters[count_name]
    observed, seconds = count_after - count_before, sum_after - sum_before
    if len(run.process_start_times_s or ()) > 1:
        return gap("engine-restarted", observed)  # the deltas span two processes' counters
    readings = (sum_before, sum_after, count_before, count_after)
    if observed < 0 or seconds < 0 or min(readings) < 0 or not math.isfinite(observed + seconds):
        # Gone backwards (a reset), or values no histogram gives (below 0; a delta that overflows to infinity).
        return gap("counter-reset", observed if math.isfinite(observed) else None)
    if observed != len(values):
        return gap("count-mismatch", observed)  # a failed request the engine timed, or another client's
    if not values:
        return gap("no-requests", observed)
    engine_mean = seconds / observed
    gap_ms = math.inf if client_mean is None else (client_mean - engine_mean) * 1000
    if client_mean is None or not math.isfinite(gap_ms):
        return gap("not-finite", observed)  # a client mean near the largest float: no gap analysis.json can hold
    return TimingGap(
        metric=metric,
        status="compared",
        engine_count=observed,
        engine_mean_s=engine_mean,
        client_count=len(values),
        client_mean_s=client_mean,
        gap_ms=gap_ms,
        beyond_bound=bound_ms is not None and abs(gap_ms) > bound_ms,
    )


def arm_timing(gaps: Sequence[TimingGap]) -> list[ArmTiming]:
    """Per metric over an arm's runs: the runs compared, not comparable and not reconcilable, and the
    compared runs' mean gap weighted by their requests (their client sums less the engine's, over
    their requests)."""
    out = []
    for metric in TIMING_METRICS:
        mine = [g for g in gaps if g.metric == metric]
        compared = [g for g in mine if g.status == "compared"]
        gaps_ms = [(g.gap_ms, g.client_count) for g in compared if g.gap_ms is not None]
        requests = sum(n for _, n in gaps_ms)
        # Of equal sizes the positive: a function of the gaps, never of the order of the journal's lines.
        largest = max((gap for gap, _ in gaps_ms), key=lambda gap: (abs(gap), gap), default=None)
        unreconcilable = sum(g.status in NOT_RECONCILABLE for g in mine)
        out.append(
            ArmTiming(
                metric=metric,
                runs_compared=len(compared),
                runs_not_comparable=len(mine) - len(compared) - unreconcilable,
                runs_not_reconcilable=unreconcilable,
                runs_without_counters=sum(g.status == "no-counters" for g in mine),
                requests_compared=requests,
                mean_gap_ms=_weighted_mean(gaps_ms) if requests else None,
                largest_gap_ms=largest,
                runs_beyond_bound=sum(g.beyond_bound for g in mine),
            )
        )
    return out


def unchecked_runs(runs: Sequence[RunStats]) -> list[RunStats]:
    """The runs where a declared bound could not be checked: either time not compared (not comparable or
    not reconcilable). A declared bound is checked on every run, or the trial does not promote."""
    return [run for run in runs if any(gap.status != "compared" for gap in run.timing)]


def unchecked_text(runs: Sequence[RunStats], blocks: dict[int, int | None], bound_ms: float | None) -> str | None:
    """'the declared 5 ms timing bound could not be checked in 3 run(s) ...: 1 in before, 2 in candidate 2', or None
    (no bound declared, or every run compared on both times)."""
    unchecked = unchecked_runs(runs) if bound_ms is not None else []
    if not unchecked:
        return None
    per_arm: dict[str, int] = {}
    for run in unchecked:
        name = f"{run.phase}{'' if blocks[run.seq] is None else f' {blocks[run.seq]}'}"
        per_arm[name] = per_arm.get(name, 0) + 1
    return (
        f"the declared {bound_ms:g} ms timing bound could not be checked in {len(unchecked)} run(s) (their TTFT "
        "or end-to-end time not comparable or not reconcilable with the engine's): " + ", ".join(f"{n} in {name}" for name, n in per_arm.items())
    )


def _mean(values: Sequence[float]) -> float | None:
    """``fsum(values) / n``: the run's mean client time."""
    return _weighted_mean([(v, 1) for v in values])


def _weighted_mean(pairs: Sequence[tuple[float, int]]) -> float | None:
    """``fsum(x * n) / fsum(n)``, exactly rounded then divided. Where the sum is beyond a float (values
    near 1e308), the same on the values scaled by a power of two (exact), so the mean of finite values is
    finite; None only where even the mean rounds beyond the largest float. Never an exception."""
    total = sum(n for _, n in pairs)
    try:
        mean = math.fsum(x * n for x, n in pairs) / total
    except (OverflowError, ValueError):  # an intermediate sum beyond a float; +inf and -inf products
        mean = math.inf
    if math.isfinite(mean):
        return mean
    exponent = math.frexp(max(abs(x) for x, _ in pairs))[1]
    try:
        mean = math.ldexp(math.fsum(math.ldexp(x, -exponent) * n for x, n in pairs) / total, exponent)
    except OverflowError:
        return None
    return mean if math.isfinite(mean) else None
