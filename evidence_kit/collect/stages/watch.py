"""Watch the engine through an arm: its process start times and its counters, run by run.

Around each run the collector scrapes ``/metrics``: the counters before and after
reconcile the run with the client's sums, and ``process_start_time_seconds`` names the
engine process that served it. What this collector saw feeds the closing checks:
``process-stable`` (with the run records of earlier collectors) and the counter deltas
behind ``prefix-cache`` and ``spec-decode-active``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from ...model.dialects import DIALECTS, Dialect
from ..lifecycle import Identity
from ..metrics import Scrape, scrape
from ..process_starts import ProcessHistory, RunStarts
from ..runs import client_sums, scrape_retrying, settle_counters

__all__ = ["EngineWatch", "MetricsAroundRun"]

START = "process_start_time_s"


@dataclass(frozen=True)
class MetricsAroundRun:
    """What ``/metrics`` said around one run: the fields of its run record."""

    verdict: bool | None  # the counters reconcile with the client's sums; None: no counters
    counters: dict[str, list[float]] | None
    mismatches: list[str]
    starts: tuple[float, ...]  # the engine's process start times, in the order seen
    resumed: bool  # the first run of a collector that resumed the arm


@dataclass
class EngineWatch:
    """What ``/metrics`` told this collector about the engine over one arm."""

    opening: float | None = None  # the start time read with the engine's identity
    resuming: bool = False  # earlier collectors committed runs of this arm
    answered: bool = False  # the engine has answered a /metrics scrape in this arm
    measured: list[RunStarts] = field(default_factory=list)  # this collector's runs, with their start times
    unanswered_runs: int = 0  # runs whose scrapes failed once the engine had reported a start time
    counters: list[dict[str, list[float]]] = field(default_factory=list)
    timed_sent: int = 0  # timed requests sent by this collector
    # Of the counters, those of runs whose prompts share no prefix: where prefix-cache hits flatter an arm.
    unique_counters: list[dict[str, list[float]]] = field(default_factory=list)
    unique_sent: int = 0
    shared_reported: int = 0  # timed ok requests of shared-prefix runs that reported their cached tokens
    suffix_hits: int = 0  # of them, those whose cache hit reached half into their own words
    conversations: bool = False  # those runs are multi-turn conversations: each turn's prefix is its history
    dialect: Dialect = DIALECTS["vllm"]  # the names /metrics is read with (the plan's engine_kind's)

    @classmethod
    def opened(cls, identity: Identity, scraped: Scrape | None, *, resuming: bool) -> EngineWatch:
        """The watch as the engine's identity left it (its scrape, its start time)."""
        return cls(opening=identity.process_start, resuming=resuming, answered=scraped is not None, dialect=identity.dialect)

    async def before_run(self, client: httpx.AsyncClient, base: str) -> Scrape | None:
        """Scrape ``/metrics`` before a run."""
        # An engine that has answered /metrics gets a few tries: one failed scrape before the
        # run would leave the whole run unreconciled (the scrape after it is retried too).
        dialect = self.dialect
        before = await (scrape_retrying(client, base, dialect) if self.answered else scrape(client, base, dialect))
        self.answered |= before is not None
        return before

    async def after_run(
        self, client: httpx.AsyncClient, base: str, run: str, before: Scrape | None, records: list[dict[str, Any]], *, shared_prefix: bool = False
    ) -> MetricsAroundRun:
        """Scrape until the run's counters settle, and note what the engine reported around it
        (``shared_prefix``: the run's prompts open with shared prefixes, so its cache hits are the point)."""
        self.timed_sent += len(records)
        self.unique_sent += 0 if shared_prefix else len(records)
        verdict, counters, mismatches, gauges = await settle_counters(
            client, base, before.counters() if before else None, client_sums(records), self.dialect
        )
        self.answered |= gauges is not None
        seen = [g[START] for g in (before.gauges() if before else None, gauges) if g and START in g]
        if (self.reported_start or seen) and (before is None or gauges is None):
            self.unanswered_runs += 1
        if counters:
            self.counters.append(counters)
            if not shared_prefix:
                self.unique_counters.append(counters)
        around = MetricsAroundRun(verdict, counters, mismatches, tuple(dict.fromkeys(seen)), resumed=self.resuming and not self.measured)
        self.measured.append(RunStarts(run, around.starts, around.resumed))
        return around

    @property
    def reported_start(self) -> bool:
        """The engine has reported a process start time to this collector."""
        return self.opening is not None or any(r.starts for r in self.measured)

    def delta(self, name: str, *, unique_only: bool = False) -> float | None:
        """How far counter ``name`` grew over the runs this collector measured (``unique_only``: over those
        whose prompts share no prefix)."""
        values = [c[name][1] - c[name][0] for c in (self.unique_counters if unique_only else self.counters) if name in c]
        return sum(values) if values else None

    def history(self, earlier: list[RunStarts], *, restarts_on_resume: bool) -> ProcessHistory:
        """The arm's process history: ``earlier`` collectors' runs, then what this one saw."""
        return ProcessHistory(earlier=earlier, opening=self.opening, current=self.measured, restarts_on_resume=restarts_on_resume)
