"""What a trial that did not run as planned prints: each failed arm, why, and the end of its engine's log.

``collect`` and the demo show these lines when an arm failed, so the reason an engine did not
start (``/bin/sh: 1: vllm: not found``) is on the screen, not only in ``logs/``.
"""

from __future__ import annotations

from pathlib import Path

from ..one_line import one_line
from .stages.context import ArmResult
from .trial_runner import TrialResult

__all__ = ["failure_lines", "log_tail", "LOG_LINES"]

LOG_LINES = 10  # the lines of a failed arm's engine log shown


def log_tail(path: Path, lines: int = LOG_LINES, width: int = 300) -> list[str]:
    """The last ``lines`` non-blank lines of a log, each shown on one line and cut at ``width`` characters."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(0, handle.tell() - 64 * 1024))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    return [one_line(line[:width]) for line in kept]


def _arm_lines(arm: ArmResult) -> list[str]:
    out = [f"  {arm.name}: {problem}" for problem in arm.problems]
    if arm.ok or arm.log_path is None:
        return out
    tail = log_tail(arm.log_path)
    if tail:
        out.append(f"  its engine's log, last lines ({arm.log_path.absolute()}):")
        out += [f"    {line}" for line in tail]
    elif arm.log_path.is_file():
        out.append(f"  its engine's log is empty ({arm.log_path.absolute()})")
    return out


def failure_lines(result: TrialResult) -> list[str]:
    """Each arm's problems, and for a failed arm whose engine the plan started, the last lines of its log."""
    return [line for arm in result.arms for line in _arm_lines(arm)]
