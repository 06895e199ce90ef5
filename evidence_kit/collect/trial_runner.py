"""Collect a whole trial (A/B/A, or the plan's longer design) into a raw evidence folder (``collect_trial``)."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..canonical import canonical_json
from ..errors import BadInput
from ..fsutil import atomic_write
from ..model import ArmRef, Header, Trial
from ..read import read_json_model
from .arm import ArmResult, ArmSetup, run_arm
from .client import Clock
from .journal_writer import ResumePoint, open_for_resume
from .lifecycle import free_port
from .plan import Plan, load_plan, ray_problem, resolve_workers, workers_problem
from .progress import Progress
from .prompts import Calibration
from .ray_workers import connect, disconnect, require_ray
from .stages.context import arm_stem
from .state import EngineState

__all__ = ["TrialResult", "collect_trial", "utc_now"]


def utc_now() -> str:
    """Wall-clock time for ``started_at``/``ended_at`` (never used to measure durations)."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class TrialResult:
    """Where the evidence went and how each arm ended."""

    out: Path
    trial: Trial
    arms: list[ArmResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every arm passed its gates and checks (an unreconciled run is shown, not failed)."""
        return len(self.arms) == len(self.trial.arms) and all(a.ok for a in self.arms)

    @property
    def ran(self) -> bool:
        """Every arm of the plan completed at least one timed request (else the trial cannot be analysed)."""
        return len(self.arms) == len(self.trial.arms) and all(a.completed for a in self.arms)

    @property
    def problems(self) -> list[str]:
        return [f"{a.name}: {p}" for a in self.arms for p in a.problems]


def _trial_bytes(trial: Trial) -> bytes:
    return canonical_json(trial.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=False, ascii_only=True)


def _prepare_check(plan: Plan, out: Path, resume: bool) -> Trial:
    """The plan's trial, refused (exit 2) when ``out`` holds another or anything else; nothing written."""
    trial = plan.trial()
    trial_file = out / "trial.json"
    if trial_file.exists():
        if not resume:
            raise BadInput("already holds a trial; pass --resume to continue it or choose another folder", out)
        existing = read_json_model(trial_file, Trial)
        if _trial_bytes(existing) != _trial_bytes(trial):
            raise BadInput("the plan differs from the trial this folder holds; cannot resume it", trial_file)
    elif out.exists() and any(out.iterdir()) and not resume:
        raise BadInput("output folder is not empty", out)
    return trial


def _prepare(plan: Plan, out: Path, resume: bool) -> Trial:
    trial = _prepare_check(plan, out, resume)
    atomic_write(out / "trial.json", _trial_bytes(trial))
    return trial


def _calibration(header: Header | None) -> Calibration | None:
    """The prompt calibration a journal's header recorded."""
    prompts = header.prompts if header else None
    return None if prompts is None else Calibration.from_record(prompts.model_dump())


def _restored_from_journal(ref: ArmRef, point: ResumePoint, plan: Plan, out: Path) -> ArmResult:
    """A finished arm's result rebuilt from its journal (for a resumed trial)."""
    logged = out / "logs" / f"{arm_stem(ref)}.log" if plan.arms[ref.arm].start else None
    ref_result = ArmResult(ref=ref, journal=out / ref.journal, log_path=logged)
    header: Header | None = point.header
    ref_result.fingerprint = header.private.config_fingerprint if header else None
    ref_result.base_url = header.private.endpoint if header else None
    cfg = plan.arms[ref_result.ref.arm]
    ref_result.managed = bool(cfg.start or cfg.stop)  # as a live arm decides it
    ref_result.kv_token_slots = header.engine.kv_token_slots if header else None
    ref_result.calibration = _calibration(header)
    failed = [r for r in point.records if getattr(r, "type", "") in ("gate", "check") and not r.ok and getattr(r, "level", None) != "warning"]
    ref_result.ok = not failed
    ref_result.problems = [f"{r.type} {r.name} failed (recorded earlier)" for r in failed]
    ref_result.completed = point.completed
    if not failed:  # as a live arm, which counts them once its gates passed
        ref_result.record_completed(point.completed, point.timed, "recorded earlier")
    return ref_result


async def _collect(
    plan: Plan,
    out: Path,
    trial: Trial,
    *,
    resume: bool,
    progress: Progress,
    clock: Clock,
    wall: Callable[[], str],
    workers: int,
    ray: dict[str, Any] | None,
) -> TrialResult:
    result = TrialResult(out=out, trial=trial)
    state = EngineState(out)
    if resume and state.reap():
        progress.note("ended an engine left running by the interrupted collector")
    ports = {name: free_port() for name in plan.arms}
    calibration: Calibration | None = None
    before: ArmResult | None = None
    candidate: ArmResult | None = None
    for ref in trial.arms:
        point = open_for_resume(out / ref.journal) if resume else ResumePoint()
        if point.finished:
            arm_result = _restored_from_journal(ref, point, plan, out)
            progress.note(f"{ref.seq:02d} {ref.arm} ({ref.phase}): already complete")
        else:
            if point.done_runs:
                progress.note(f"{ref.seq:02d} {ref.arm} ({ref.phase}): resuming after {len(point.done_runs)} run(s)")
            if point.header is not None and calibration is None:
                calibration = _calibration(point.header)
            setup = ArmSetup(
                plan=plan,
                ref=ref,
                out=out,
                clock=clock,
                wall=wall,
                progress=progress,
                port=ports[ref.arm],
                resume=point,
                state=state,
                workers=workers,
                ray=ray,
                calibration=calibration,
                before=before if ref.phase == "restored" else None,
                candidate=candidate if ref.phase == "restored" else None,
            )
            arm_result = await run_arm(setup)
        calibration = calibration or arm_result.calibration
        if ref.phase == "before":
            before = arm_result
        elif ref.phase == "candidate":
            candidate = arm_result
        result.arms.append(arm_result)
    return result


def collect_trial(
    plan: Plan | str | Path,
    out_dir: str | Path,
    *,
    resume: bool = False,
    progress: Progress | None = None,
    clock: Clock = time.monotonic,
    wall: Callable[[], str] = utc_now,
    workers: int | str | None = None,
    ray: str | None = None,
) -> TrialResult:
    """Run the plan's trial, arm by arm in its sequence, and write ``trial.json``, journals, telemetry and logs to ``out_dir``.

    With ``resume`` an interrupted trial continues from its last complete run. ``workers`` overrides
    the plan's ``[workload] workers`` (``--workers``): how many processes stream the timed requests.
    ``ray`` overrides the plan's ``[workload] ray`` (``--ray``): the address of a Ray cluster (or ``"auto"``)
    whose actors are the workers (:mod:`.ray_workers`).
    Raises :class:`~evidence_kit.errors.BadInput` for a bad plan, output folder, ``workers`` or ``ray`` (Ray
    not installed included), :class:`~.ray_workers.RayUnavailable` when no Ray cluster answers there (nothing
    is written), and :class:`~.workers.WorkerFailed` when a worker dies (the run it was in is not journalled);
    gate and check failures are recorded and reported in the result, not raised.
    """
    if not isinstance(plan, Plan):
        plan = load_plan(plan)
    out = Path(out_dir)
    problem = None if workers is None else workers_problem(workers, plan.workload.slots())
    if problem:
        raise BadInput(problem.replace("workers", "--workers", 1))
    problem = None if ray is None else ray_problem(ray)
    if problem:
        raise BadInput(problem.replace("ray", "--ray", 1))
    address = plan.workload.ray if ray is None else ray
    if address is not None:
        require_ray()
    _prepare_check(plan, out, resume)
    cluster = connect(address) if address is not None else None  # before anything is written: unreachable is no trial
    try:
        trial = _prepare(plan, out, resume)
        wanted = plan.workload.workers if workers is None else workers
        count = resolve_workers(wanted, plan.workload.slots(), cores=cluster["cpus"] if cluster else None)
        progress = progress or Progress()
        if cluster is not None:
            progress.note(f"{count} Ray actor(s) stream the timed requests")
        elif count > 1:
            progress.note(f"{count} worker processes stream the timed requests")
        try:
            return asyncio.run(_collect(plan, out, trial, resume=resume, progress=progress, clock=clock, wall=wall, workers=count, ray=cluster))
        finally:
            progress.close()
    finally:
        if cluster is not None:
            disconnect()
