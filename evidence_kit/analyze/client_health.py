"""The client's own health, run by run, judged against the trial's declared bounds (pure, no I/O).

The collector journals raw values per run (its processes' loop lag and CPU seconds, the
run's wall time) and per request (``t_send_s``, ``e2e_s``, ``send_wait_s``); everything
here is derived from them, so ``verify`` recomputes it. A run whose client exceeded a
bound was measured by a client that may have been the bottleneck: every latency it
reports may be inflated, so the trial cannot promote.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.findings import ClientExceedance, ClientSaturatedFinding, ClientSaturation, Finding
from ..model.journal import Request, Run
from ..model.trial import ClientBounds
from .report import RunClient, RunStats
from .stats import nearest_rank

__all__ = ["run_client", "achieved_concurrency", "saturation_findings", "saturated_text"]


def achieved_concurrency(requests: Sequence[Request]) -> float | None:
    """Time-averaged requests on the wire: the sum of each request's send -> end over the span from the
    first send to the last end. Only requests with both times count (a failed request has no end); None
    without one, or when the span is zero."""
    spans = [(r.t_send_s, r.t_send_s + r.e2e_s) for r in requests if r.t_send_s is not None and r.e2e_s is not None]
    if not spans:
        return None
    wall = max(end for _, end in spans) - min(start for start, _ in spans)
    return sum(end - start for start, end in spans) / wall if wall > 0 else None


def _exceeded(name: str, value: float | None, limit: float) -> list[ClientExceedance]:
    if value is None or value <= limit:
        return []
    return [ClientExceedance(bound=name, value=value, limit=limit, over_pct=(value / limit - 1) * 100)]  # type: ignore[arg-type]


def run_client(run: Run, requests: Sequence[Request], bounds: ClientBounds) -> RunClient | None:
    """The client's health over one run and the bounds it exceeded; None when the run record holds none."""
    health = run.client
    if health is None:
        return None
    processes = health.processes
    lags = [p.loop_lag_max_s for p in processes if p.loop_lag_max_s is not None]
    p50s = [p.loop_lag_p50_s for p in processes if p.loop_lag_p50_s is not None]
    # Each process runs one event loop on one thread: the busiest one is the bottleneck.
    share = max(p.loop_cpu_s for p in processes) / health.wall_s if health.wall_s > 0 else None
    waits = [r.send_wait_s for r in requests if r.send_wait_s is not None]
    lag_max = max(lags) if lags else None
    wait_max = max(waits) if waits else None
    exceeded = (_exceeded("loop-lag", lag_max, bounds.max_loop_lag_s)
                + _exceeded("send-wait", wait_max, bounds.max_send_wait_s)
                + _exceeded("loop-cpu", share, bounds.max_cpu_share))
    return RunClient(
        wall_s=health.wall_s,
        processes=len(processes),
        cpu_s=sum(p.cpu_s for p in processes),
        loop_cpu_share=share,
        loop_lag_samples=sum(p.loop_lag_samples for p in processes),
        loop_lag_p50_s=max(p50s) if p50s else None,
        loop_lag_max_s=lag_max,
        send_wait_p50_s=nearest_rank(waits, 50) if waits else None,
        send_wait_max_s=wait_max,
        achieved_concurrency=achieved_concurrency(requests),
        exceeded=exceeded,
        saturated=bool(exceeded),
    )


def saturation_findings(runs: Sequence[RunStats], blocks: dict[int, int | None]) -> list[Finding]:
    """One ``client-saturated`` finding per run whose client exceeded a bound, arm by arm in run order."""
    out: list[Finding] = []
    for run in runs:
        if run.client is not None and run.client.saturated:
            values = ClientSaturation(phase=run.phase, block=blocks[run.seq], run=run.run,
                                      exceeded=run.client.exceeded)
            out.append(ClientSaturatedFinding(kind="client-saturated", values=values))
    return out


def saturated_text(runs: Sequence[RunStats], blocks: dict[int, int | None]) -> str | None:
    """'the client was saturated in 2 run(s): before r1-256-c3, candidate 2 r2-256-c1', or None."""
    names = [f"{run.phase}{'' if blocks[run.seq] is None else f' {blocks[run.seq]}'} {run.run}"
             for run in runs if run.client is not None and run.client.saturated]
    if not names:
        return None
    return f"the client was saturated (a declared client bound exceeded) in {len(names)} run(s): " + ", ".join(names)
