"""The client's own health, run by run, judged against the trial's declared bounds (pure, no I/O).

The collector journals raw values per run (its processes' loop lag and CPU seconds, the
run's wall time) and per request (``t_send_s``, ``e2e_s``, ``send_wait_s``); everything
here is derived from them, so ``verify`` recomputes it. A run whose client exceeded a
bound was measured by a client that may have been the bottleneck: every latency it
reports may be inflated, so the trial cannot promote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from ..model.findings import ClientExceedance, ClientSaturatedFinding, ClientSaturation, Finding
from ..model.journal import HEALTH_TOLERANCE_S, Request, Run
from ..model.trial import ClientBounds
from .report import RunClient, RunStats
from .stats import nearest_rank

__all__ = ["run_client", "achieved_concurrency", "arrival_rates", "saturation_findings", "saturated_text", "unjudged_text"]

Bound = Literal["loop-lag", "loop-lag-p50", "send-wait", "loop-cpu", "arrival-rate"]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``; None where the denominator is 0 or the ratio overflows (not derivable)."""
    return _finite(numerator / denominator) if denominator > 0 else None


def _spans(requests: Sequence[Request]) -> list[tuple[float, float]]:
    return [(r.t_send_s, r.t_send_s + r.e2e_s) for r in requests if r.t_send_s is not None and r.e2e_s is not None]


def _span(spans: list[tuple[float, float]]) -> float | None:
    """First send to last end; None without a request or where it overflows."""
    return _finite(max(end for _, end in spans) - min(start for start, _ in spans)) if spans else None


def achieved_concurrency(requests: Sequence[Request]) -> float | None:
    """Time-averaged requests on the wire: the sum of each request's send -> end over the span from the
    first send to the last end. Only requests with both times count (a failed request has no end); None
    without one, when the span is zero, or where a sum overflows."""
    spans = _spans(requests)
    wall = _span(spans)
    return None if wall is None else _ratio(sum(end - start for start, end in spans), wall)


def _rate(times: Sequence[float]) -> float | None:
    """(n - 1) / (last - first): the rate of n starts (exact for equal gaps); None for fewer than two or no span."""
    if len(times) < 2:
        return None
    return _ratio(len(times) - 1, max(times) - min(times))


def arrival_rates(requests: Sequence[Request], due: Sequence[float] | None = None) -> tuple[float | None, float | None]:
    """An open-loop run's achieved and scheduled arrival rates (requests per second) over its timed requests:
    from their sends (``t_send_s``) and from their due times: the plan's schedule ``due`` (by request index)
    where it is known, else the journal's ``scheduled_s``."""
    sends = [r.t_send_s for r in requests if r.t_send_s is not None]
    if due is not None:
        return _rate(sends), _rate([due[r.index] for r in requests if r.t_send_s is not None and _known(due, r)])
    return _rate(sends), _rate([r.scheduled_s for r in requests if r.scheduled_s is not None])


def _known(due: Sequence[float], r: Request) -> bool:
    return r.index < len(due) and math.isfinite(due[r.index])


def _send_waits(run: Run, requests: Sequence[Request], due: Sequence[float] | None) -> list[float]:
    """Each request's send lag: the journal's ``send_wait_s``, or where the plan's schedule ``due`` and the run's
    ``t_start_s`` are known, its send time less its due time by that schedule when it is later (a journal whose
    stated due times are its late sends states no lag)."""
    waits = []
    for r in requests:
        lag = r.send_wait_s
        if due is not None and run.t_start_s is not None and r.t_send_s is not None and _known(due, r):
            planned = round(r.t_send_s - run.t_start_s - due[r.index], 6)
            lag = planned if lag is None or planned > lag + 5e-6 else lag
        if lag is not None:
            waits.append(lag)
    return waits


def _exceeded(name: Bound, value: float | None, limit: float) -> list[ClientExceedance]:
    if value is None or value <= limit:
        return []
    return [ClientExceedance(bound=name, value=value, limit=limit, over_pct=_finite((value / limit - 1) * 100))]


# How much longer than its requests' span (first send to last end) a run's wall time may plausibly be when
# every timed request ended: the collector's own time before the first send and after the last end is
# milliseconds (3-5 ms in tests/collect/test_client_health.py's runs), so 1 s plus 10% of the span is a
# margin of hundreds. Beyond it the CPU share is over a time the requests do not show: not judged.
WALL_SLACK_S, WALL_SLACK_FRACTION = 1.0, 0.1


def _wall_plausible(wall_s: float, requests: Sequence[Request]) -> bool:
    spans = _spans(requests)
    if not requests or len(spans) != len(requests):
        return True  # a request that did not end (it failed) may have held the run open unseen
    span = _span(spans)
    return span is None or wall_s <= span * (1 + WALL_SLACK_FRACTION) + WALL_SLACK_S


def run_client(run: Run, requests: Sequence[Request], bounds: ClientBounds, due: Sequence[float] | None = None) -> RunClient | None:
    """The client's health over one run, the bounds it exceeded and those it could not be judged against;
    None when the run record holds none. ``due``: an open-loop run's schedule as the plan gives it
    (``analyze/schedule.py``), which its rate and send lags are judged against."""
    health = run.client
    if health is None:
        return None
    processes = health.processes
    lags = [p.loop_lag_max_s for p in processes if p.loop_lag_max_s is not None]
    p50s = [p.loop_lag_p50_s for p in processes if p.loop_lag_p50_s is not None]
    # Each process runs one event loop on one thread: the busiest one is the bottleneck.
    loop_cpu = max(p.loop_cpu_s for p in processes)
    share = _ratio(loop_cpu, health.wall_s)
    waits = _send_waits(run, requests, due if run.rate is not None else None)
    lag_max = max(lags) if lags else None
    lag_p50 = max(p50s) if p50s else None
    wait_max = max(waits) if waits else None
    unjudged: list[Bound] = []
    # A process that never sampled in a run of more than two of its intervals (its overdue wake counts at
    # the end) hides its loop: fail closed, as a guardrail that cannot be checked does.
    if any(p.loop_lag_samples == 0 and health.wall_s > 2 * p.loop_lag_interval_s + HEALTH_TOLERANCE_S for p in processes):
        unjudged += ["loop-lag", "loop-lag-p50"]
    if (share is None and loop_cpu > 0) or not _wall_plausible(health.wall_s, requests):
        unjudged.append("loop-cpu")  # CPU in a wall time it cannot be a share of (0, overflowing, implausible)
    achieved = scheduled = shortfall = None
    if run.rate is not None:
        # Open loop: judged against its own schedule (a Poisson schedule's rate differs from the plan's by chance;
        # that is the offered load, not the client's doing). send_wait_s counts from each request's due time.
        achieved, scheduled = arrival_rates(requests, due)
        shortfall = None if achieved is None or not scheduled else _finite(1 - achieved / scheduled)
        if shortfall is None and len(requests) > 1:
            unjudged.append("arrival-rate")
    exceeded = (
        _exceeded("loop-lag", lag_max, bounds.max_loop_lag_s)
        + _exceeded("loop-lag-p50", lag_p50, bounds.max_loop_lag_p50_s)
        + _exceeded("send-wait", wait_max, bounds.max_send_wait_s)
        + _exceeded("loop-cpu", share, bounds.max_cpu_share)
        + (_exceeded("arrival-rate", shortfall, bounds.rate_shortfall) if run.rate is not None else [])
    )
    return RunClient(
        wall_s=health.wall_s,
        processes=len(processes),
        cpu_s=_finite(sum(p.cpu_s for p in processes)),
        loop_cpu_share=share,
        loop_lag_samples=sum(p.loop_lag_samples for p in processes),
        loop_lag_p50_s=lag_p50,
        loop_lag_max_s=lag_max,
        send_wait_p50_s=nearest_rank(waits, 50) if waits else None,
        send_wait_max_s=wait_max,
        achieved_concurrency=achieved_concurrency(requests),
        achieved_rate_per_s=achieved,
        scheduled_rate_per_s=scheduled,
        rate_shortfall=shortfall,
        exceeded=exceeded,
        unjudged=unjudged,
        saturated=bool(exceeded),
    )


def saturation_findings(runs: Sequence[RunStats], blocks: dict[int, int | None]) -> list[Finding]:
    """One ``client-saturated`` finding per run whose client exceeded a bound, arm by arm in run order."""
    out: list[Finding] = []
    for run in runs:
        if run.client is not None and run.client.saturated:
            values = ClientSaturation(phase=run.phase, block=blocks[run.seq], run=run.run, exceeded=run.client.exceeded)
            out.append(ClientSaturatedFinding(kind="client-saturated", values=values))
    return out


def saturated_text(runs: Sequence[RunStats], blocks: dict[int, int | None]) -> str | None:
    """'the client was saturated in 2 run(s): before r1-256-c3, candidate 2 r2-256-c1', or None."""
    names = [
        f"{run.phase}{'' if blocks[run.seq] is None else f' {blocks[run.seq]}'} {run.run}"
        for run in runs
        if run.client is not None and run.client.saturated
    ]
    if not names:
        return None
    return f"the client was saturated (a declared client bound exceeded) in {len(names)} run(s): " + ", ".join(names)


def unjudged_text(runs: Sequence[RunStats], blocks: dict[int, int | None]) -> str | None:
    """'the client's health could not be judged against a declared bound in 1 run(s): candidate r1-256-c1
    (loop-cpu)', or None."""
    names = [
        f"{run.phase}{'' if blocks[run.seq] is None else f' {blocks[run.seq]}'} {run.run} ({', '.join(run.client.unjudged)})"
        for run in runs
        if run.client is not None and run.client.unjudged
    ]
    if not names:
        return None
    return (
        f"the client's health could not be judged against a declared bound (a figure not derivable from the "
        f"run record) in {len(names)} run(s): " + ", ".join(names)
    )
