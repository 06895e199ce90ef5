"""The timed runs of an arm: each sent, reconciled with the engine's counters and committed.

A run is the journal's unit of resumption: its requests and its ``run`` record are
committed together, so ``collect --resume`` redoes exactly the runs not in the journal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..arrivals import WARM_LANES
from ..health import HealthMonitor
from ..plan import Plan
from ..prompts import PromptBook
from ..runs import RunSpec, median_or_none, record_of
from ..shapes import Batch, Sending, shape_of
from ..telemetry import TelemetrySampler, cgroup_of
from ..transport import HereTransport, Transport
from ..workers import WorkerPool
from .context import ArmContext
from .engine import ArmEngine
from .watch import EngineWatch, MetricsAroundRun

__all__ = ["runs_to_do", "start_telemetry", "measure_run"]


def runs_to_do(plan: Plan, done: set[str]) -> list[RunSpec]:
    """The plan's matrix of runs in run order, less those done: repetition by repetition, its groups
    in plan order or, for ``order = "randomised"``, in the repetition's shuffled order (the same in
    every arm, and in trial.json's workload for the reader to check)."""
    wl = plan.public_workload()
    specs = (RunSpec(*run, open_loop=wl.open_loop) for run in wl.run_order())
    return [spec for spec in specs if spec.id not in done]


def start_telemetry(arm: ArmContext, engine: ArmEngine) -> TelemetrySampler:
    """Sample the engine in the background while the runs go (the caller stops it)."""
    tp = arm.setup.plan.telemetry
    pgid = engine.process.pgid if engine.process else None
    cgroup = Path(tp.cgroup) if tp.cgroup else (cgroup_of(pgid) if pgid else None)
    sampler = TelemetrySampler(
        arm.client,
        arm.base,
        arm.telemetry_path,
        interval_s=tp.interval_s,
        clock=arm.setup.clock,
        nvidia_smi=tp.nvidia_smi == "auto",
        pgid=pgid,
        cgroup=cgroup,
        dialect=arm.setup.plan.metrics_dialect(),
    )
    sampler.start()
    return sampler


async def measure_run(arm: ArmContext, watch: EngineWatch, book: PromptBook, spec: RunSpec, pool: WorkerPool | None = None) -> None:
    """Open the run's connections, send its requests, reconcile the engine's counters and commit the run.

    The run's workload shape (:mod:`..shapes`) makes its requests and sends them through a transport
    (:mod:`..transport`): without ``pool`` the collector's own process, with one its workers (processes,
    :mod:`..workers`, or Ray actors, :mod:`..ray_workers`), and the run record's ``client.processes`` lists
    the collector's process, then theirs.
    """
    s, wl = arm.setup, arm.setup.plan.workload
    shape = shape_of(s.plan, spec)
    transport: Transport = pool if pool is not None else HereTransport(arm.client, s.clock, arm.t0)
    batch = shape.batch(s.plan, arm.cfg.model, book, spec)
    url = f"{arm.base}/v1/chat/completions"
    primed = await shape.prime(arm, book, spec, url)
    # Before the scrape, so nothing it sends can fall between the counters read before and after the run.
    lanes = spec.concurrency or min(wl.max_in_flight or WARM_LANES, WARM_LANES, wl.requests_per_run)
    opened = await transport.open_connections(arm.base, lanes)
    if opened < lanes:
        s.progress.note(f"  {spec.id}: {lanes - opened} of {lanes} connections did not open before the run (its requests open them)")
    before = await watch.before_run(arm.client, arm.base)
    health = HealthMonitor(s.clock)
    health.start()
    await transport.begin()
    start = s.clock()  # after each worker's anchor is placed: the schedule starts when they can send
    timings = await shape.send(transport, batch, Sending(url, lanes, start, wl.request_timeout_s, wl.max_in_flight))
    workers = await transport.end()
    client = await health.stop()
    client["processes"] += workers
    records = _request_records(spec, batch, timings)
    around = await watch.after_run(arm.client, arm.base, spec.id, before, records, shared_prefix=shape.shares_prefix)
    shape.after(watch, book, spec, records)
    for record in primed + records:
        arm.writer.add(record)
    run, mismatches = _run_record(spec, records, around, None if batch.offsets is None else round(start - arm.t0, 6))
    run["client"] = client
    where = transport.private()
    if where:
        run["private"] = where  # the machines of Ray actors: private, harvested and pseudonymised by redact
    arm.writer.add(run)
    arm.writer.commit()
    s.progress.run_done(run, median_or_none([r["e2e_s"] for r in records]), median_or_none([r["ttft_s"] for r in records]))
    if around.verdict is False:
        s.progress.note(f"  {spec.id}: counters do not reconcile: {'; '.join(mismatches)}")


def _request_records(spec: RunSpec, batch: Batch, timings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The run's ``request`` records: each request's timing fields (with an open loop's due time), where the
    collector says it belongs."""
    if batch.offsets is not None:
        for timing, offset in zip(timings, batch.offsets):
            timing["scheduled_s"] = round(offset, 6)
    return [
        record_of(
            t,
            run=spec.id,
            repetition=spec.repetition,
            input_nominal=spec.input_nominal,
            concurrency=spec.concurrency,
            rate=spec.rate,
            index=i,
            warmup=False,
            **batch.where(i),
        )
        for i, t in enumerate(timings)
    ]


def _run_record(
    spec: RunSpec, records: list[dict[str, Any]], around: MetricsAroundRun, t_start: float | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The ``run`` record, and why its counters do not reconcile (if they do not)."""
    run: dict[str, Any] = {
        "type": "run",
        "run": spec.id,
        "repetition": spec.repetition,
        "input_nominal": spec.input_nominal,
        **spec.load_fields(),
        **({} if t_start is None else {"t_start_s": t_start}),
        "requests": len(records),
        "ok": sum(r["ok"] for r in records),
        "reconciled": around.verdict,
        "counters": around.counters,
    }
    if around.starts:
        run["process_start_times_s"] = list(around.starts)  # kept for a later --resume
    if around.resumed:
        run["resumed"] = True
    mismatches = around.mismatches
    failed = len(records) - run["ok"]
    if around.verdict is False and failed:
        # Not a counting fault: the engine counted the tokens it processed for them.
        mismatches = [
            *mismatches,
            f"{failed} request(s) of this run failed; the engine counts the tokens it processed for them, the client has no usage for them",
        ]
    if mismatches and around.verdict is not True:
        run["mismatches"] = mismatches
    return run, mismatches
