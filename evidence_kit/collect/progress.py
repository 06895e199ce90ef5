"""Progress reporting: rich bars per arm with live medians, or nothing (library use, tests)."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichBars

__all__ = ["Progress", "RichProgress", "LineProgress", "fmt_s"]


def fmt_s(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}s"


class Progress:
    """Silent base: the collector calls these hooks; subclasses show them."""

    def arm_started(self, label: str, runs: int) -> None:
        """An arm began; it has ``runs`` runs still to do."""

    def note(self, text: str) -> None:
        """A gate, check or lifecycle event worth one line."""

    def run_done(self, run: dict[str, Any], e2e_median: float | None, ttft_median: float | None) -> None:
        """A run record was committed."""

    def arm_done(self, label: str, ok: bool) -> None:
        """An arm ended (footer written)."""

    def close(self) -> None:
        """Release the display."""


def _run_status(run: dict[str, Any], e2e_median: float | None, ttft_median: float | None) -> str:
    verdict = {True: "reconciled", False: "NOT reconciled", None: "no counters"}[run.get("reconciled")]
    return f"{run['run']}: {run['ok']}/{run['requests']} ok, median e2e {fmt_s(e2e_median)}, ttft {fmt_s(ttft_median)}, {verdict}"


class LineProgress(Progress):
    """Off a terminal (a CI log, a file): one plain line per event on ``stream``, never wrapped, no bars."""

    def __init__(self, stream: Any = None):
        self.stream = stream
        self.label = ""

    def _line(self, text: str) -> None:
        print(" ".join(text.split("\n")), file=self.stream or sys.stderr, flush=True)

    def arm_started(self, label: str, runs: int) -> None:
        self.label = label
        self._line(f"{label}: {runs} run(s) to do")

    def note(self, text: str) -> None:
        self._line(text)

    def run_done(self, run: dict[str, Any], e2e_median: float | None, ttft_median: float | None) -> None:
        self._line(f"{self.label}: {_run_status(run, e2e_median, ttft_median)}")

    def arm_done(self, label: str, ok: bool) -> None:
        self._line(f"{label}: {'done' if ok else 'FAILED'}")


class RichProgress(Progress):
    """One bar per arm counting runs, with the last run's medians and reconciliation."""

    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.bars = RichBars(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=self.console,
            transient=False,
        )
        self.bars.start()
        self.task: Any = None

    def arm_started(self, label: str, runs: int) -> None:
        # The arm's gate and check lines follow this one: without it they name no arm.
        self.bars.console.print(f"{label}: {runs} run(s) to do", markup=False, highlight=False)
        self.task = self.bars.add_task(label, total=max(runs, 1), status="")

    def note(self, text: str) -> None:
        self.bars.console.print(text, markup=False, highlight=False)

    def run_done(self, run: dict[str, Any], e2e_median: float | None, ttft_median: float | None) -> None:
        status = _run_status(run, e2e_median, ttft_median)
        if self.task is not None:
            self.bars.update(self.task, advance=1, status=status)

    def arm_done(self, label: str, ok: bool) -> None:
        if self.task is not None:
            task = self.bars.tasks[-1]
            self.bars.update(self.task, completed=task.total, status="done" if ok else "FAILED")

    def close(self) -> None:
        self.bars.stop()
