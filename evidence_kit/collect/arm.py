"""One arm of a trial: start, wait, identify, gate, warm up, run the matrix, check, stop.

The journal is committed in units (see :mod:`.journal_writer`): preamble,
each run, closing checks and footer. Anything interrupted is discarded, the
engine this arm started is stopped, and ``collect --resume`` redoes only the
runs that never reached the journal.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import httpx

from ..model import ArmRef, Run
from .calibration import calibrate
from .client import Clock
from .gates import run_gate
from .journal_writer import JournalWriter, ResumePoint
from .lifecycle import (
    EngineFailed,
    EngineProcess,
    Identity,
    capture_identity,
    fill_placeholders,
    run_command,
    wait_ready,
)
from .metrics import scrape, shared_prefix_hits
from .plan import Plan
from .process_starts import ProcessHistory, RunStarts
from .progress import Progress
from .prompts import Calibration, PromptBook
from .runs import (
    RunSpec,
    client_sums,
    median_or_none,
    request_body,
    request_record,
    scrape_retrying,
    send_all,
    settle_counters,
)
from .state import EngineState
from .telemetry import TelemetrySampler, cgroup_of

__all__ = ["ArmSetup", "ArmResult", "run_arm"]


@dataclass
class ArmSetup:
    """Everything one arm needs, passed in (clock and wall clock included)."""

    plan: Plan
    ref: ArmRef
    out: Path
    clock: Clock
    wall: Callable[[], str]
    progress: Progress
    port: int
    resume: ResumePoint
    state: EngineState
    calibration: Calibration | None = None
    before: "ArmResult | None" = None
    candidate: "ArmResult | None" = None


@dataclass
class ArmResult:
    """How the arm ended, and what the restored arm compares against."""

    ref: ArmRef
    ok: bool = True
    problems: list[str] = field(default_factory=list)
    fingerprint: str | None = None
    kv_token_slots: int | None = None
    base_url: str | None = None
    managed: bool = False  # the collector started and stopped this arm's engine
    calibration: Calibration | None = None


def _check(writer: JournalWriter, result: ArmResult, progress: Progress, name: str, ok: bool, detail: str,
           **extra: Any) -> None:
    writer.add({"type": "check", "name": name, "ok": ok, "detail": detail, **extra})
    progress.note(f"  check {name}: {'ok' if ok else 'FAILED'} ({detail})")
    if not ok and extra.get("level") != "warning":
        result.ok = False
        result.problems.append(f"check {name} failed: {detail}")


class _Arm:
    """The state of one arm while it runs (a class only to keep each step short)."""

    def __init__(self, s: ArmSetup, client: httpx.AsyncClient):
        self.s, self.client = s, client
        self.cfg = s.plan.arms[s.ref.arm]
        values = {"port": str(s.port), "python": sys.executable, "arm": s.ref.arm}
        self.base = fill_placeholders(self.cfg.base_url, values).rstrip("/")
        values["base_url"] = self.base
        self.values = values
        self.routed = fill_placeholders(self.cfg.routed_url, values).rstrip("/") if self.cfg.routed_url else None
        stem = f"{s.ref.seq:02d}-{s.ref.arm}-{s.ref.phase}"
        self.log_path = s.out / "logs" / f"{stem}.log"
        self.telemetry_path = s.out / "telemetry" / f"{stem}.jsonl"
        if s.resume.header is None:
            # The arm starts from scratch (its journal held no complete run): samples of the
            # discarded attempt describe no run of this journal, so they go with it.
            self.telemetry_path.unlink(missing_ok=True)
        self.writer = JournalWriter(s.out / s.ref.journal, requests=s.resume.requests, timed=s.resume.timed)
        self.result = ArmResult(ref=s.ref, calibration=s.calibration)
        self.t0 = s.clock()
        self.process_starts: list[float] = []
        self.opening_start: float | None = None  # the start time read with the engine's identity
        self.measured: list[RunStarts] = []  # the runs this collector measured, with their start times
        self.timed_sent = 0  # timed requests sent by this session of the arm
        self.unanswered_runs = 0  # runs whose /metrics scrape failed once the engine had answered one
        self.metrics_answered = False  # the engine has answered a /metrics scrape in this arm
        self.engine: EngineProcess | None = None
        self.stopped = False
        self.counters: list[dict[str, list[float]]] = []

    def check(self, name: str, ok: bool, detail: str, **extra: Any) -> None:
        _check(self.writer, self.result, self.s.progress, name, ok, detail, **extra)

    async def start(self) -> Identity:
        if self.cfg.start:
            self.engine = EngineProcess(fill_placeholders(self.cfg.start, self.values), self.log_path,
                                        env=dict(self.cfg.env))
            self.engine.start()
            self.s.state.remember(self.engine)
        ready_url = fill_placeholders(self.cfg.ready_url or "{base_url}/v1/models", self.values)
        waited = await wait_ready(self.client, ready_url, timeout_s=self.cfg.ready_timeout_s, engine=self.engine)
        self.s.progress.note(f"  ready after {waited:.1f}s")
        identity, scraped = await capture_identity(self.client, self.base,
                                                   log_path=self.log_path if self.engine else None, engine=self.engine)
        self.metrics_answered = scraped is not None
        self.result.fingerprint, self.result.kv_token_slots = identity.fingerprint, identity.kv_token_slots
        self.result.base_url, self.result.managed = self.base, bool(self.cfg.start or self.cfg.stop)
        if identity.process_start is not None:
            self.process_starts.append(identity.process_start)
            self.opening_start = identity.process_start
        return identity

    def header(self, identity: Identity, calibration: Calibration) -> None:
        s = self.s
        private = {**identity.private, "model": self.cfg.model}
        if self.routed:
            private["routed_endpoint"] = self.routed
        self.writer.add({
            "type": "header", "schema": "evidence-kit/journal/v1", "trial_id": s.plan.trial_id,
            "arm": s.ref.arm, "phase": s.ref.phase, "seq": s.ref.seq, "started_at": s.wall(),
            "engine": {"kv_token_slots": identity.kv_token_slots}, "prompts": calibration.as_record(),
            "private": private,
        })

    def engine_kind(self, identity: Identity) -> bool:
        """Check the engine is what the plan declares; False (no timed work) for a simulator
        declared as a real engine, whose numbers would otherwise be published unlabelled."""
        declared = self.s.plan.engine_kind
        if identity.simulated and declared != "simulated":
            detail = (f"the engine reports it is simulated (/version \"simulated\": true) but the plan declares "
                      f"engine_kind \"{declared}\"; no gate or timed request ran on it")
            self.check("engine-kind", False, detail)
            self.result.problems.append(detail)
            return False
        if declared == "vllm" and identity.vllm_metrics is False:
            self.check("engine-kind", False, "the plan declares engine_kind \"vllm\" but /metrics holds no vllm: "
                       "series", level="warning")
        elif declared == "simulated" and not identity.simulated:
            self.check("engine-kind", False, "the plan declares engine_kind \"simulated\" but /version does not say "
                       "the engine is simulated (its results are labelled simulated anyway)", level="warning")
        else:
            self.check("engine-kind", True, f"the engine is consistent with engine_kind \"{declared}\"")
        return True

    async def gates(self) -> bool:
        s, gp = self.s, self.s.plan.gates
        opts = {"timeout_s": gp.timeout_s, "max_tokens": gp.max_tokens, "needle_words": gp.needle_words,
                "seed": s.plan.workload.seed}
        targets = [("direct", self.base, self.cfg.model)]
        if self.routed:
            targets.append(("routed", self.routed, self.cfg.routed_model or self.cfg.model))
        all_ok = True
        for target, base, model in targets:
            for name in gp.run:
                ok, detail = await run_gate(name, self.client, base, model, opts)
                self.writer.add({"type": "gate", "name": name, "target": target, "ok": ok, "detail": detail})
                s.progress.note(f"  gate {name} ({target}): {'ok' if ok else 'FAILED'} ({detail})")
                if not ok:
                    all_ok = False
                    self.result.problems.append(f"gate {name} ({target}) failed: {detail}")
        return all_ok

    def book(self) -> PromptBook:
        wl = self.s.plan.workload
        assert self.result.calibration is not None
        return PromptBook(wl.instruction, wl.seed, self.result.calibration)

    async def warmup(self) -> None:
        wl = self.s.plan.workload
        if not wl.warmup_requests:
            return
        book, conc = self.book(), min(wl.concurrency)
        keys = [f"warmup/{i}" for i in range(wl.warmup_requests)]
        sizes = [wl.input_nominal[i % len(wl.input_nominal)] for i in range(wl.warmup_requests)]
        bodies = [request_body(wl, self.cfg.model, book, k, n) for k, n in zip(keys, sizes)]
        outcomes = await send_all(self.client, f"{self.base}/v1/chat/completions", bodies, concurrency=conc,
                                  clock=self.s.clock, timeout=wl.request_timeout_s)
        for i, outcome in enumerate(outcomes):
            self.writer.add(request_record(outcome, run="warmup", repetition=0, input_nominal=sizes[i],
                                           concurrency=conc, index=i, warmup=True, key=keys[i], t0=self.t0))
        failed = sum(not o.ok for o in outcomes)
        self.s.progress.note(f"  warmup: {len(outcomes) - failed}/{len(outcomes)} ok")

    async def run(self, spec: RunSpec) -> None:
        wl, book = self.s.plan.workload, self.book()
        keys = [f"{spec.id}/{i}" for i in range(wl.requests_per_run)]
        bodies = [request_body(wl, self.cfg.model, book, k, spec.input_nominal) for k in keys]
        # An engine that has answered /metrics gets a few tries: one failed scrape before the
        # run would leave the whole run unreconciled (the scrape after it is retried too).
        before = await (scrape_retrying(self.client, self.base) if self.metrics_answered
                        else scrape(self.client, self.base))
        self.metrics_answered |= before is not None
        seen: list[float] = []  # this run's start times, kept in its record for a later --resume
        if before is not None and "process_start_time_s" in before.gauges():
            seen.append(before.gauges()["process_start_time_s"])
        outcomes = await send_all(self.client, f"{self.base}/v1/chat/completions", bodies,
                                  concurrency=spec.concurrency, clock=self.s.clock, timeout=wl.request_timeout_s)
        self.timed_sent += len(outcomes)
        records = [request_record(o, run=spec.id, repetition=spec.repetition, input_nominal=spec.input_nominal,
                                  concurrency=spec.concurrency, index=i, warmup=False, key=keys[i], t0=self.t0)
                   for i, o in enumerate(outcomes)]
        verdict, counters, problems, gauges = await settle_counters(
            self.client, self.base, before.counters() if before else None, client_sums(records))
        self.metrics_answered |= gauges is not None
        if gauges and "process_start_time_s" in gauges:
            seen.append(gauges["process_start_time_s"])
        self.process_starts.extend(seen)
        if self.process_starts and (before is None or gauges is None):
            self.unanswered_runs += 1
        if counters:
            self.counters.append(counters)
        for record in records:
            self.writer.add(record)
        run = {"type": "run", "run": spec.id, "repetition": spec.repetition, "input_nominal": spec.input_nominal,
               "concurrency": spec.concurrency, "requests": len(records), "ok": sum(r["ok"] for r in records),
               "reconciled": verdict, "counters": counters}
        starts = tuple(dict.fromkeys(seen))
        if starts:
            run["process_start_times_s"] = list(starts)
        resumed = bool(self.s.resume.done_runs) and not self.measured
        if resumed:
            run["resumed"] = True
        self.measured.append(RunStarts(spec.id, starts, resumed))
        failed = len(records) - run["ok"]
        if verdict is False and failed:
            # Not a counting fault: the engine counted the tokens it processed for them.
            problems = [*problems, f"{failed} request(s) of this run failed; the engine counts the tokens "
                        "it processed for them, the client has no usage for them"]
        if problems and verdict is not True:
            run["mismatches"] = problems
        self.writer.add(run)
        self.writer.commit()
        self.s.progress.run_done(run, median_or_none([r["e2e_s"] for r in records]),
                                 median_or_none([r["ttft_s"] for r in records]))
        if verdict is False:
            self.s.progress.note(f"  {spec.id}: counters do not reconcile: {'; '.join(problems)}")

    def delta(self, name: str) -> float | None:
        values = [c[name][1] - c[name][0] for c in self.counters if name in c]
        return sum(values) if values else None

    def process_stable(self) -> None:
        """Which engine processes measured the arm, across every collector session that ran it.

        A new process where a resumed collector started the plan's engine is a known event
        (failed at level warning: shown, the arm stands); one anywhere else, a dead engine or
        an unanswered /metrics fails the arm.
        """
        history = ProcessHistory(earlier=[RunStarts.of(r) for r in self.s.resume.records if isinstance(r, Run)],
                                 opening=self.opening_start, current=self.measured,
                                 restarts_on_resume=bool(self.cfg.start))
        lost = (f"; /metrics went unanswered in {self.unanswered_runs} run(s)" if self.unanswered_runs else "")
        code = self.engine.exited() if self.engine is not None else None
        if self.engine is not None and code != 0:
            # Still running, or died during the arm (a non-zero exit of its start command):
            # a dead engine must never pass as stable just because it reported one start time.
            alive = code is None and self.engine.group_alive()
            state = ("alive through the arm" if alive else "GONE before the arm ended" if code is None
                     else f"GONE before the arm ended (start command exited with status {code})")
            sound, detail = alive, f"started engine {state}; {history.describe()}{lost}"
        elif history.starts:
            sound, detail = True, f"{history.describe()}{lost}"
        else:
            return
        sound = sound and not history.unexplained and not self.unanswered_runs
        self.check("process-stable", sound and history.stable, detail,
                   **({} if not sound or history.stable else {"level": "warning"}))

    def closing_checks(self, identity: Identity) -> None:
        s = self.s
        self.process_stable()
        if s.resume.done_runs:
            self.check("resumed", identity.fingerprint == (s.resume.header.private or {}).get("config_fingerprint"),
                       f"collection resumed after {len(s.resume.done_runs)} completed run(s); "
                       "configuration fingerprint compared with the header's")
        hits = self.delta("prefix_cache_hits")
        if hits is not None:
            calibration = self.result.calibration
            allowed = shared_prefix_hits(self.timed_sent, calibration.overhead_tokens if calibration else 0,
                                         identity.private.get("cache_config") or {})
            self.check("prefix-cache", hits <= allowed, f"{hits:g} prefix-cache hit tokens during timed runs"
                       + (f" (the shared instruction's whole blocks allow {allowed})" if allowed else ""),
                       level="warning")
        if self.cfg.speculative:
            accepted = self.delta("spec_decode_accepted_tokens")
            drafts = self.delta("spec_decode_drafts")
            self.check("spec-decode-active", bool(accepted and accepted > 0),
                       "engine exposes no spec-decode counters" if accepted is None
                       else f"{drafts or 0:g} drafts, {accepted:g} accepted tokens during timed runs")

    async def restoration_checks(self) -> None:
        before = self.s.before
        if before is None:
            return
        same_config = before.fingerprint == self.result.fingerprint
        same_slots = before.kv_token_slots == self.result.kv_token_slots
        self.check("identity-equality", same_config and same_slots,
                   f"configuration fingerprint {'matches' if same_config else 'DIFFERS from'} the before arm; "
                   f"KV token slots {self.result.kv_token_slots} vs {before.kv_token_slots}")
        await self.candidate_removed()
        if self.routed:
            routed_ok = not any("(routed)" in p for p in self.result.problems)
            identity, _ = await capture_identity(self.client, self.routed, log_path=None, engine=None)
            want = self.cfg.routed_model or self.cfg.model
            listed = want in identity.models
            self.check("readmission", routed_ok and listed,
                       f"routed gates {'passed' if routed_ok else 'failed'}; the route "
                       f"{'lists' if listed else 'does NOT list'} the restored arm's model")


    async def candidate_removed(self) -> None:
        """The candidate no longer serves: its endpoint is gone, or serves another configuration.

        A failure only where the collector managed the candidate's engine (start/stop
        commands); for an endpoint someone else runs it is a warning.
        """
        cand = self.s.candidate
        if cand is None or cand.base_url is None or cand.fingerprint is None:
            return
        if cand.base_url == self.base:
            gone, detail = (self.result.fingerprint != cand.fingerprint,
                            "the shared endpoint now serves " + ("another configuration than the candidate's"
                                                                 if self.result.fingerprint != cand.fingerprint
                                                                 else "the candidate's configuration STILL"))
        else:
            identity, scraped = await capture_identity(self.client, cand.base_url, log_path=None, engine=None)
            answered = bool(identity.models) or scraped is not None
            gone = not answered or identity.fingerprint != cand.fingerprint
            detail = ("the candidate's endpoint no longer answers" if not answered else
                      "the candidate's endpoint answers with another configuration" if gone else
                      "the candidate's endpoint STILL serves the candidate's configuration")
        self.check("candidate-removed", gone, detail, **({} if cand.managed else {"level": "warning"}))


def _planned(plan: Plan) -> list[RunSpec]:
    wl = plan.workload
    return [RunSpec(rep, i, c) for rep in range(1, wl.repetitions + 1) for i in wl.input_nominal for c in wl.concurrency]


async def run_arm(s: ArmSetup) -> ArmResult:
    """Run one arm end to end and return how it went; the journal holds the evidence."""
    todo = [spec for spec in _planned(s.plan) if spec.id not in s.resume.done_runs]
    wl = s.plan.workload
    limits = httpx.Limits(max_connections=max(wl.concurrency) + 4, max_keepalive_connections=max(wl.concurrency) + 4)
    s.progress.arm_started(f"{s.ref.seq:02d} {s.ref.arm} ({s.ref.phase})", len(todo))
    async with httpx.AsyncClient(limits=limits, timeout=wl.request_timeout_s) as client:
        arm = _Arm(s, client)
        sampler: TelemetrySampler | None = None
        try:
            try:
                identity = await arm.start()
            except EngineFailed as err:
                return _failed_start(arm, err)
            if arm.result.calibration is None:
                arm.result.calibration = await calibrate(client, arm.base, arm.cfg.model, wl.instruction, wl.seed)
            if s.resume.header is None:
                arm.header(identity, arm.result.calibration)
            gates_ok = arm.engine_kind(identity) and await arm.gates()
            if gates_ok:
                await arm.warmup()
            arm.writer.commit()
            if gates_ok:
                tp = s.plan.telemetry
                pgid = arm.engine.pgid if arm.engine else None
                cgroup = Path(tp.cgroup) if tp.cgroup else (cgroup_of(pgid) if pgid else None)
                sampler = TelemetrySampler(client, arm.base, arm.telemetry_path, interval_s=tp.interval_s,
                                           clock=s.clock, nvidia_smi=tp.nvidia_smi == "auto", pgid=pgid,
                                           cgroup=cgroup)
                sampler.start()
                for spec in todo:
                    await arm.run(spec)
                arm.closing_checks(identity)
                await arm.restoration_checks()
            summary = await sampler.stop() if sampler else None
            sampler = None
            status = _stop(arm)  # before the footer, so a failing stop command is on record
            if status not in (None, 0):
                arm.check("stop", False, "stop command timed out" if status == -1
                          else f"stop command exited with status {status}", level="warning")
            arm.writer.footer(s.wall(), **({"telemetry": summary} if summary else {}))
            arm.writer.commit()
            if not gates_ok:
                arm.result.ok = False
            s.progress.arm_done(s.ref.arm, arm.result.ok)
            return arm.result
        finally:
            arm.writer.discard()
            if sampler is not None:
                await sampler.stop()
            if not arm.stopped:
                _stop(arm)


def _failed_start(arm: _Arm, reason: EngineFailed) -> ArmResult:
    """The engine never became ready: record why, close the journal, fail the arm."""
    s = arm.s
    if s.resume.header is None:
        arm.writer.add({"type": "header", "schema": "evidence-kit/journal/v1", "trial_id": s.plan.trial_id,
                        "arm": s.ref.arm, "phase": s.ref.phase, "seq": s.ref.seq, "started_at": s.wall(),
                        "private": {"endpoint": arm.base}})
    arm.check("ready", False, reason.public, private={"log_tail": reason.log_tail} if reason.log_tail else {})
    arm.writer.footer(s.wall())
    arm.writer.commit()
    s.progress.arm_done(s.ref.arm, False)
    return arm.result


def _stop(arm: _Arm) -> int | None:
    """Stop the arm's engine (unless kept serving); the stop command's exit status, if one ran."""
    arm.stopped = True
    keep = arm.cfg.keep_serving and arm.s.ref.phase == "restored"
    if keep:
        arm.s.state.forget()  # it serves on purpose: no later --resume may end it as an orphan
        return None
    if arm.engine is not None:
        status = arm.engine.stop(fill_placeholders(arm.cfg.stop, arm.values) if arm.cfg.stop else None)
        arm.s.state.forget()
        return status
    if arm.cfg.stop:
        return run_command(fill_placeholders(arm.cfg.stop, arm.values), arm.log_path, dict(arm.cfg.env))
    return None
