"""One arm of a trial: start, wait, identify, gate, warm up, run the matrix, check, stop.

:func:`run_arm` runs the stages of :mod:`.stages` in order. The journal is committed
in units (see :mod:`.journal_writer`): preamble, each run, closing checks and footer.
Anything interrupted is discarded, the engine this arm started is stopped, and
``collect --resume`` redoes only the runs that never reached the journal.
"""

from __future__ import annotations

import contextlib

from .connections import arm_client
from .lifecycle import EngineFailed
from .prompts import PromptBook
from .ray_workers import ray_pool
from .stages.closing import closing_checks, restoration_checks
from .stages.context import ArmContext, ArmResult, ArmSetup
from .stages.engine import ArmEngine, record_failed_start, record_stop, start
from .stages.preamble import calibrated, engine_kind_ok, gates_pass, warmup, write_header
from .stages.timed_runs import measure_run, runs_to_do, start_telemetry
from .stages.watch import EngineWatch
from .telemetry import TelemetrySampler
from .workers import WorkerPool, worker_pool

__all__ = ["ArmSetup", "ArmResult", "run_arm"]


async def run_arm(s: ArmSetup) -> ArmResult:
    """Run one arm end to end and return how it went; the journal holds the evidence."""
    todo = runs_to_do(s.plan, s.resume.done_runs)
    wl = s.plan.workload
    s.progress.arm_started(f"{s.ref.seq:02d} {s.ref.arm} ({s.ref.phase})", len(todo))
    async with arm_client(wl.request_timeout_s) as client:
        arm = ArmContext.open(s, client)
        engine = ArmEngine(arm)
        sampler: TelemetrySampler | None = None
        try:
            try:
                identity, scraped = await start(arm, engine)
            except EngineFailed as err:
                return record_failed_start(arm, err)
            calibration = await calibrated(arm)
            if s.resume.header is None:
                write_header(arm, identity, calibration)
            book = PromptBook(wl.instruction, wl.seed, calibration, prefix_tokens=wl.prefix_tokens, prefixes=wl.prefixes)
            gates_ok = engine_kind_ok(arm, identity) and await gates_pass(arm)
            if gates_ok:
                await warmup(arm, book)
            arm.writer.commit()  # the preamble
            if gates_ok:
                sampler = start_telemetry(arm, engine)
                watch = EngineWatch.opened(identity, scraped, resuming=bool(s.resume.done_runs))
                async with contextlib.AsyncExitStack() as stack:
                    # Started once per arm, before its first timed run, and ended with the block however it ends.
                    pool: WorkerPool | None = None
                    if s.ray is not None and todo:
                        pool = await stack.enter_async_context(ray_pool(s.workers, arm.t0, wl.most_in_flight(), s.ray))
                    elif s.workers > 1 and todo:
                        pool = await stack.enter_async_context(worker_pool(s.workers, arm.t0))
                    for spec in todo:
                        await measure_run(arm, watch, book, spec, pool)
                closing_checks(arm, watch, engine, identity)
                await restoration_checks(arm)
                arm.result.record_completed(arm.writer.completed, arm.writer.timed, f"each one's error is in {arm.result.journal}")
            summary = await sampler.stop() if sampler else None
            sampler = None  # stopped: its last sample is taken
            record_stop(arm, engine.stop())  # before the footer, so a failing stop command is on record
            arm.writer.footer(s.wall(), **({"telemetry": summary.model_dump()} if summary else {}))
            arm.writer.commit()
            if not gates_ok:
                arm.result.ok = False
            s.progress.arm_done(s.ref.arm, arm.result.ok)
            return arm.result
        finally:
            arm.writer.discard()
            if sampler is not None:
                await sampler.stop()
            engine.stop()
