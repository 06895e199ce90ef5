"""What the stages of one arm share: its setup, endpoints and files, its journal and its result."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ...model import ArmRef
from ..client import Clock
from ..journal_writer import JournalWriter, ResumePoint
from ..lifecycle import fill_placeholders
from ..plan import ArmPlan, Plan
from ..progress import Progress
from ..prompts import Calibration
from ..shell import fill_command
from ..state import EngineState

__all__ = ["ArmSetup", "ArmResult", "ArmContext", "arm_stem"]


def arm_stem(ref: ArmRef) -> str:
    """The name an arm's journal, telemetry and log files share: ``01-original-before``."""
    return f"{ref.seq:02d}-{ref.arm}-{ref.phase}"


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
    workers: int = 1  # processes that stream the timed requests; 1: the collector's own (collect/workers.py)
    ray: dict[str, Any] | None = None  # the Ray cluster joined (collect/ray_workers.py): the workers are its actors
    calibration: Calibration | None = None
    before: ArmResult | None = None
    candidate: ArmResult | None = None


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
    completed: int = 0  # timed requests that succeeded: an arm with none did not run
    journal: Path | None = None
    log_path: Path | None = None  # the output of the engine the plan's start command launched

    @property
    def name(self) -> str:
        """'restored arm', or with the block of a longer design 'restored arm 2'."""
        return f"{self.ref.phase} arm" + (f" {self.ref.block}" if self.ref.block else "")

    def record_completed(self, completed: int, timed: int, where: str) -> None:
        """The arm's completed timed requests; an arm that ran its timed requests and completed none did not run: it fails."""
        self.completed = completed
        if completed == 0:
            self.ok = False
            self.problems.append(f"none of its {timed} timed requests completed ({where})")


@dataclass
class ArmContext:
    """One arm while it runs, fixed when it opens and shared by every stage.

    Only the journal (records queued, then committed) and the result (problems found)
    change as the stages run; what a stage learns is handed on as its return value.
    """

    setup: ArmSetup
    client: httpx.AsyncClient
    cfg: ArmPlan
    values: dict[str, str]  # the placeholders of the plan's URLs and commands (quoted into commands)
    base: str
    routed: str | None
    log_path: Path
    telemetry_path: Path
    writer: JournalWriter
    result: ArmResult
    t0: float  # the arm's start on the monotonic clock; request records count from it

    @classmethod
    def open(cls, s: ArmSetup, client: httpx.AsyncClient) -> ArmContext:
        """The context of the arm ``s`` describes, its journal opened where a resume left it."""
        cfg = s.plan.arms[s.ref.arm]
        values = {"port": str(s.port), "python": sys.executable, "arm": s.ref.arm}
        base = fill_placeholders(cfg.base_url, values).rstrip("/")
        values["base_url"] = base
        routed = fill_placeholders(cfg.routed_url, values).rstrip("/") if cfg.routed_url else None
        stem = arm_stem(s.ref)
        log_path = s.out / "logs" / f"{stem}.log"
        telemetry_path = s.out / "telemetry" / f"{stem}.jsonl"
        if s.resume.header is None:
            # The arm starts from scratch (its journal held no complete run): samples of the
            # discarded attempt describe no run of this journal, so they go with it.
            telemetry_path.unlink(missing_ok=True)
        return cls(
            setup=s,
            client=client,
            cfg=cfg,
            values=values,
            base=base,
            routed=routed,
            log_path=log_path,
            telemetry_path=telemetry_path,
            writer=JournalWriter(s.out / s.ref.journal, requests=s.resume.requests, timed=s.resume.timed, completed=s.resume.completed),
            result=ArmResult(ref=s.ref, calibration=s.calibration, journal=s.out / s.ref.journal, log_path=log_path if cfg.start else None),
            t0=s.clock(),
        )

    def fill(self, url: str) -> str:
        """A plan URL with this arm's placeholders filled in."""
        return fill_placeholders(url, self.values)

    def command(self, text: str) -> str:
        """A plan's shell command with this arm's placeholders filled in, each one quoted for the shell."""
        return fill_command(text, self.values)

    def header(self, **fields: Any) -> None:
        """Queue the journal header: the fields every header has, then ``fields``."""
        s = self.setup
        self.writer.add(
            {
                "type": "header",
                "schema": "evidence-kit/journal/v1",
                "trial_id": s.plan.trial_id,
                "arm": s.ref.arm,
                "phase": s.ref.phase,
                "seq": s.ref.seq,
                "started_at": s.wall(),
                **fields,
            }
        )

    def check(self, name: str, ok: bool, detail: str, **extra: Any) -> None:
        """Queue a ``check`` record and show it; a failed check (not a warning) fails the arm."""
        self.writer.add({"type": "check", "name": name, "ok": ok, "detail": detail, **extra})
        warning = extra.get("level") == "warning"
        self.setup.progress.note(f"  check {name}: {'ok' if ok else 'warning' if warning else 'FAILED'} ({detail})")
        if not ok and not warning:
            self.result.ok = False
            self.result.problems.append(f"check {name} failed: {detail}")
