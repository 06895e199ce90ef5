"""The arm's engine: launched if the plan starts one, awaited until it serves, identified, stopped once.

An engine the collector starts is remembered in the output folder (see :mod:`..state`)
before anything can interrupt the arm, so a later ``collect --resume`` can end it.
"""

from __future__ import annotations

from ..lifecycle import EngineFailed, EngineProcess, Identity, capture_identity, run_command, wait_ready
from ..metrics import Scrape
from .context import ArmContext, ArmResult

__all__ = ["ArmEngine", "start", "record_failed_start", "record_stop"]


class ArmEngine:
    """The engine of one arm as the collector handles it: ``process`` is the one it started."""

    def __init__(self, arm: ArmContext):
        self.arm = arm
        self.process: EngineProcess | None = None
        self._stopped = False

    def launch(self) -> None:
        """Run the plan's start command, if it has one, and remember its process group."""
        cfg = self.arm.cfg
        if not cfg.start:
            return
        self.process = EngineProcess(self.arm.command(cfg.start), self.arm.log_path, env=dict(cfg.env))
        self.process.start()
        self.arm.setup.state.remember(self.process)

    def stop(self) -> int | None:
        """Stop the engine (unless kept serving), the first time only; the stop command's exit
        status, if one ran."""
        if self._stopped:
            return None
        self._stopped = True
        arm, cfg = self.arm, self.arm.cfg
        if cfg.keep_serving and arm.setup.ref.seq == len(arm.setup.plan.sequence):  # the last arm only
            arm.setup.state.forget()  # it serves on purpose: no later --resume may end it as an orphan
            return None
        if self.process is not None:
            status = self.process.stop(arm.command(cfg.stop) if cfg.stop else None)
            arm.setup.state.forget()
            return status
        if cfg.stop:
            return run_command(arm.command(cfg.stop), arm.log_path, dict(cfg.env))
        return None

    def fate(self) -> tuple[bool, str] | None:
        """Whether the engine this arm started still runs, and what became of it in words;
        ``None`` when the arm started none, or its start command detached (exited 0)."""
        if self.process is None:
            return None
        code = self.process.exited()
        if code == 0:
            return None
        # Still running, or died during the arm (a non-zero exit of its start command):
        # a dead engine must never pass as stable just because it reported one start time.
        alive = code is None and self.process.group_alive()
        return alive, (
            "alive through the arm"
            if alive
            else "GONE before the arm ended"
            if code is None
            else f"GONE before the arm ended (start command exited with status {code})"
        )


async def start(arm: ArmContext, engine: ArmEngine) -> tuple[Identity, Scrape | None]:
    """Launch the engine, wait until it serves and capture its identity (and the ``/metrics``
    scrape read with it). Raises :class:`~..lifecycle.EngineFailed` if it never serves."""
    engine.launch()
    ready_url = arm.fill(arm.cfg.ready_url or "{base_url}/v1/models")
    waited = await wait_ready(arm.client, ready_url, timeout_s=arm.cfg.ready_timeout_s, engine=engine.process)
    arm.setup.progress.note(f"  ready after {waited:.1f}s")
    identity, scraped = await capture_identity(
        arm.client, arm.base, arm.setup.plan.metrics_dialect(), engine=engine.process, log_path=arm.log_path if engine.process else None
    )
    result = arm.result
    result.fingerprint, result.kv_token_slots = identity.fingerprint, identity.kv_token_slots
    result.base_url, result.managed = arm.base, bool(arm.cfg.start or arm.cfg.stop)
    return identity, scraped


def record_failed_start(arm: ArmContext, reason: EngineFailed) -> ArmResult:
    """The engine never became ready: record why, close the journal, fail the arm."""
    s = arm.setup
    if s.resume.header is None:
        arm.header(private={"endpoint": arm.base})
    arm.check("ready", False, reason.public, private={"log_tail": reason.log_tail} if reason.log_tail else {})
    arm.writer.footer(s.wall())
    arm.writer.commit()
    s.progress.arm_done(s.ref.arm, False)
    return arm.result


def record_stop(arm: ArmContext, status: int | None) -> None:
    """A stop command that failed or timed out is on record (a warning: the evidence stands)."""
    if status not in (None, 0):
        arm.check("stop", False, "stop command timed out" if status == -1 else f"stop command exited with status {status}", level="warning")
