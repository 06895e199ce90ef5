"""Which engine processes measured an arm: the evidence behind its ``process-stable`` check.

An engine's ``process_start_time_seconds`` (Prometheus' process collector on vLLM, and the
simulator) names the process serving it: another value is another process. Each run record
keeps the start times ``/metrics`` reported around that run (``process_start_times_s``), and
the first run a resumed collector measured says so (``resumed``). A collector resumed after
``kill -9`` therefore still knows which processes measured the runs its predecessors
committed, and where each collector took over: a check computed from this session's scrapes
alone would call an arm stable that ran on two or three engine processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["RunStarts", "ProcessHistory"]


@dataclass(frozen=True)
class RunStarts:
    """The start times ``/metrics`` reported around one run, and whether a resumed collector began with it."""

    run: str
    starts: tuple[float, ...] = ()
    resumed: bool = False

    @classmethod
    def of(cls, record: Any) -> RunStarts:
        """From a committed run record (a journal written before these fields existed has neither)."""
        return cls(record.run, tuple(getattr(record, "process_start_times_s", None) or ()), bool(getattr(record, "resumed", None)))


def _runs(ordinals: list[int]) -> str:
    """``runs 1-2, 5`` for ordinals 1, 2, 5."""
    spans: list[list[int]] = []
    for n in ordinals:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)
    return ("runs " if len(ordinals) > 1 else "run ") + text


@dataclass
class ProcessHistory:
    """The engine start times seen over one arm, collector session by collector session.

    ``earlier`` are the run records a resumed collector found committed; ``opening`` is the
    start time this collector read before its first run (when it captured the engine's
    identity); ``current`` are the runs this collector measured. ``restarts_on_resume`` says
    a resumed collector starts an engine of its own (the plan's start command), so a new
    start time where it took over is that known event; anywhere else it is an engine that
    restarted on its own.
    """

    earlier: list[RunStarts] = field(default_factory=list)
    opening: float | None = None
    current: list[RunStarts] = field(default_factory=list)
    restarts_on_resume: bool = False

    def _sessions(self) -> list[tuple[int, list[tuple[float, int | None]]]]:
        """Each collector session as (its first run's ordinal, [(start time, run ordinal)])."""
        sessions: list[tuple[int, list[tuple[float, int | None]]]] = []
        for ordinal, run in enumerate(self.earlier, 1):
            if not sessions or run.resumed:
                sessions.append((ordinal, []))
            sessions[-1][1].extend((t, ordinal) for t in run.starts)
        first = len(self.earlier) + 1
        seen: list[tuple[float, int | None]] = [] if self.opening is None else [(self.opening, None)]
        sessions.append((first, seen))
        for ordinal, run in enumerate(self.current, first):
            seen.extend((t, ordinal) for t in run.starts)
        return sessions

    @property
    def starts(self) -> list[float]:
        """Every distinct start time, in the order first seen."""
        return list(dict.fromkeys(t for _, seen in self._sessions() for t, _ in seen))

    @property
    def stable(self) -> bool:
        """One engine process (or none reporting a start time) measured the whole arm."""
        return len(self.starts) <= 1

    def _resume(self, first: int) -> str:
        """Where a collector resumed: at its first run, or after the last (it measured none)."""
        total = len(self.earlier) + len(self.current)
        return f"at run {first}" if first <= total else f"after run {total}"

    def _changes(self) -> tuple[list[str], list[str]]:
        """Where the start time changed: (known resume restarts, unexplained changes)."""
        known: list[str] = []
        unexplained: list[str] = []
        previous: float | None = None
        sessions = self._sessions()
        for index, (first, seen) in enumerate(sessions):
            for position, (t, ordinal) in enumerate(seen):
                if previous is not None and t != previous:
                    if position == 0 and index > 0:
                        (known if self.restarts_on_resume else unexplained).append(f"at the resume {self._resume(first)}")
                    else:
                        unexplained.append(f"within one collector session, at run {ordinal}")
                previous = t
        return known, unexplained

    @property
    def unexplained(self) -> bool:
        """The start time changed where no collector started an engine: the engine restarted on its own."""
        return bool(self._changes()[1])

    def describe(self) -> str:
        """What happened, in one phrase for the check's detail."""
        sessions = self._sessions()
        resumes = [first for first, _ in sessions[1:]]
        resumed = " and ".join(self._resume(n) for n in resumes)
        starts = self.starts
        if not starts:
            return "the engine reports no process start time"
        if len(starts) == 1:
            blind = [first for first, seen in sessions if not seen]
            return (
                "the engine's reported process start time never changed"
                + (f", across the resume {resumed}" if resumes else "")
                + (f" (no start time recorded by the collector that began at {_runs(blind)})" if blind else "")
            )
        where: dict[float, list[int]] = {t: [] for t in starts}
        for _, seen in sessions:
            for t, ordinal in seen:
                if ordinal is not None and ordinal not in where[t]:
                    where[t].append(ordinal)
        listed = ", ".join(f"{t!r} ({_runs(where[t]) if where[t] else 'no run'})" for t in starts)
        known, unexplained = self._changes()
        why = [f"changed {w} (the resumed collector started a new engine)" for w in known]
        why += [f"changed {w} (the engine restarted on its own)" for w in unexplained]
        return f"engine process changed during the arm: start times {listed}" + (f" (resumed {resumed})" if resumes else "") + "; " + "; ".join(why)
