"""The timed runs of an arm: each sent, reconciled with the engine's counters and committed.

A run is the journal's unit of resumption: its requests and its ``run`` record are
committed together, so ``collect --resume`` redoes exactly the runs not in the journal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..arrivals import WARM_LANES, schedule
from ..client import stream_chat
from ..connections import open_connections
from ..conversations import Conversation, TurnSender, run_conversations, send_conversations
from ..health import HealthMonitor
from ..plan import Plan
from ..prompts import PromptBook
from ..runs import RunSpec, median_or_none, record_of, request_body, request_record, send_all, send_scheduled, timing_fields
from ..telemetry import TelemetrySampler, cgroup_of
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

    Without ``pool`` the collector's own process sends the requests; with one its workers do (processes,
    :mod:`..workers`, or Ray actors, :mod:`..ray_workers`), and the run record's ``client.processes`` lists
    the collector's process, then theirs.
    """
    s, wl = arm.setup, arm.setup.plan.workload
    keys = [f"{spec.id}/{i}" for i in range(wl.requests_per_run)]
    trace = s.plan.trace
    prefixed = trace is None and s.plan.public_workload().prefixed(spec.input_nominal)
    conversations = run_conversations(wl, arm.cfg.model, book, spec.id, spec.input_nominal) if wl.turns > 1 else None
    if conversations is not None:  # every turn of every conversation is a request of the run
        keys = [k for conversation in conversations for k in conversation.keys]
    prefixes = [book.prefix_of(k) if prefixed else None for k in keys]
    if conversations is not None:
        bodies = [c.first for c in conversations]
    elif trace is None:
        bodies = [request_body(wl, arm.cfg.model, book, k, spec.input_nominal, prefix=p) for k, p in zip(keys, prefixes)]
    else:  # each request sized as its trace line says
        bodies = [request_body(wl, arm.cfg.model, book, k, line.input_length, max_tokens=line.output_length) for k, line in zip(keys, trace.requests)]
    url = f"{arm.base}/v1/chat/completions"
    primed = await _prime(arm, book, spec, url) if prefixed and s.plan.public_workload().prime_prefixes else []
    # Before the scrape, so nothing it sends can fall between the counters read before and after the run.
    lanes = spec.concurrency or min(wl.max_in_flight or WARM_LANES, WARM_LANES, wl.requests_per_run)
    opened = await (pool.open_connections(arm.base, lanes) if pool is not None else open_connections(arm.client, arm.base, lanes))
    if opened < lanes:
        s.progress.note(f"  {spec.id}: {lanes - opened} of {lanes} connections did not open before the run (its requests open them)")
    before = await watch.before_run(arm.client, arm.base)
    health = HealthMonitor(s.clock)
    health.start()
    offsets = (
        None
        if spec.rate is None
        else trace.offsets(wl.trace_time_scale)
        if trace is not None
        else schedule(len(bodies), spec.rate, wl.arrival, seed=wl.seed, input_nominal=spec.input_nominal)
    )
    if conversations is not None:
        timings = await _converse(arm, url, conversations, lanes, pool)
        workers = await pool.end() if pool is not None else []
        client = await health.stop()
        client["processes"] += workers
    elif pool is None:
        start = s.clock()
        if offsets is None:
            outcomes = await send_all(arm.client, url, bodies, concurrency=lanes, clock=s.clock, timeout=wl.request_timeout_s)
        else:
            outcomes = await send_scheduled(
                arm.client, url, bodies, offsets, start=start, clock=s.clock, timeout=wl.request_timeout_s, max_in_flight=wl.max_in_flight
            )
        timings = [timing_fields(o, arm.t0) for o in outcomes]
        client = await health.stop()
    else:
        await pool.begin()
        start = s.clock()  # after each worker's anchor is placed: the schedule starts when they can send
        timings = await (
            pool.send_all(url, bodies, concurrency=lanes, timeout=wl.request_timeout_s)
            if offsets is None
            else pool.send_scheduled(url, bodies, offsets, start=start, timeout=wl.request_timeout_s, max_in_flight=wl.max_in_flight)
        )
        workers = await pool.end()
        client = await health.stop()
        client["processes"] += workers
    if offsets is not None:
        for timing, offset in zip(timings, offsets):
            timing["scheduled_s"] = round(offset, 6)
    turns = wl.turns if conversations is not None else None
    records = [
        record_of(
            t,
            run=spec.id,
            repetition=spec.repetition,
            input_nominal=spec.input_nominal,
            concurrency=spec.concurrency,
            rate=spec.rate,
            index=i,
            warmup=False,
            key=keys[i],
            prefix=prefixes[i],
            conversation=None if turns is None else i // turns,
            turn=None if turns is None else i % turns + 1,
        )
        for i, t in enumerate(timings)
    ]
    # A conversation's later turns re-send its history: their cache hits are the point, as a shared prefix's.
    around = await watch.after_run(arm.client, arm.base, spec.id, before, records, shared_prefix=prefixed or conversations is not None)
    if prefixed or conversations is not None:
        # A prefix explains a hit up to its own end; one deep into the request's own words means this engine
        # saw the whole prompt before (an earlier arm on an engine not restarted): the prefix-cache check.
        # (A turn's own words are its new user message: the history before it is the conversation's prefix.)
        own = book.own_tokens(spec.input_nominal) if prefixed else book.unique_tokens(spec.input_nominal)
        watch.conversations |= conversations is not None
        reported = [r for r in records if r["ok"] and r.get("cached_tokens") is not None and r["prompt_tokens"]]
        watch.shared_reported += len(reported)
        watch.suffix_hits += sum(1 for r in reported if r["cached_tokens"] > r["prompt_tokens"] - own / 2)
    for record in primed + records:
        arm.writer.add(record)
    run, mismatches = _run_record(spec, records, around, None if offsets is None else round(start - arm.t0, 6))
    run["client"] = client
    where = pool.private() if pool is not None else None
    if where:
        run["private"] = where  # the machines of Ray actors: private, harvested and pseudonymised by redact
    arm.writer.add(run)
    arm.writer.commit()
    s.progress.run_done(run, median_or_none([r["e2e_s"] for r in records]), median_or_none([r["ttft_s"] for r in records]))
    if around.verdict is False:
        s.progress.note(f"  {spec.id}: counters do not reconcile: {'; '.join(mismatches)}")


async def _converse(arm: ArmContext, url: str, conversations: list[Conversation], lanes: int, pool: WorkerPool | None) -> list[dict[str, Any]]:
    """Send the run's conversations from this process or the pool's workers: every turn's timing fields, in
    conversation and turn order."""
    s, wl = arm.setup, arm.setup.plan.workload

    async def here(lane: int, index: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], str]:
        outcome = await stream_chat(arm.client, url, body, clock=s.clock, timeout=wl.request_timeout_s, lane=lane, headers=headers)
        return timing_fields(outcome, arm.t0), outcome.text

    async def there(lane: int, index: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], str]:
        assert pool is not None
        return await pool.send_turn(url, lane, index, body, headers, timeout=wl.request_timeout_s)

    send: TurnSender = here
    if pool is not None:
        await pool.begin()
        send = there
    # One conversation per lane, even on a Ray actor whose lanes are handed a request ahead: a turn is due only
    # once the previous answer is back here, so nothing could be handed ahead but another conversation's turn.
    turns = await send_conversations(send, conversations, concurrency=lanes)
    return [timing for conversation in turns for timing in conversation]


async def _prime(arm: ArmContext, book: PromptBook, spec: RunSpec, url: str) -> list[dict[str, Any]]:
    """One untimed request per shared prefix, one after another, before a run of a shared-prefix group (and
    before its scrape, so its counters hold the run alone): every run meets the prefixes cached, whatever
    the runs before it left in the cache. Journalled as warmup (``<run>/prime-<prefix>``), with the run."""
    s, wl = arm.setup, arm.setup.plan.workload
    prefixes = list(range(book.prefixes or 0))
    keys = [f"{spec.id}/prime-{p}" for p in prefixes]
    bodies = [request_body(wl, arm.cfg.model, book, k, spec.input_nominal, prefix=p) for k, p in zip(keys, prefixes)]
    outcomes = await send_all(arm.client, url, bodies, concurrency=1, clock=s.clock, timeout=wl.request_timeout_s)
    # Recorded in the run's group (a journal holds no request of a group the workload lacks), sent one at a time.
    return [
        request_record(
            o,
            run="warmup",
            repetition=0,
            input_nominal=spec.input_nominal,
            concurrency=spec.concurrency,
            rate=spec.rate,
            index=p,
            warmup=True,
            key=k,
            t0=arm.t0,
            prefix=p,
        )
        for o, k, p in zip(outcomes, keys, prefixes)
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
