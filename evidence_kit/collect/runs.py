"""Runs: ``requests_per_run`` requests at a group's concurrency or arrival rate, and their journal records."""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from ..model.dialects import Dialect
from ..model.trial import rate_text
from .arrivals import send_open
from .client import Clock, Outcome, stream_chat
from .metrics import Scrape, reconcile, scrape
from .prompts import PromptBook

if TYPE_CHECKING:
    from .plan import PlanWorkload  # (plan imports the shapes, which import this)

__all__ = [
    "RunSpec",
    "run_id",
    "send_all",
    "send_scheduled",
    "timing_fields",
    "request_record",
    "record_of",
    "scrape_retrying",
    "settle_counters",
    "median_or_none",
]


@dataclass(frozen=True)
class RunSpec:
    """One run's place in the matrix: which repetition and group, and its id. ``load`` is the group's
    concurrency, or its rate (requests per second) when ``open_loop``."""

    repetition: int
    input_nominal: int
    load: int | float
    open_loop: bool = False

    @property
    def id(self) -> str:
        return run_id(self.repetition, self.input_nominal, self.load, open_loop=self.open_loop)

    @property
    def concurrency(self) -> int | None:
        return None if self.open_loop else int(self.load)

    @property
    def rate(self) -> float | None:
        return float(self.load) if self.open_loop else None

    def load_fields(self) -> dict[str, Any]:
        """``concurrency`` (closed loop) or ``rate`` (open loop): the records' group field."""
        return {"rate": self.rate} if self.open_loop else {"concurrency": self.concurrency}


def run_id(repetition: int, input_nominal: int, load: int | float, *, open_loop: bool = False) -> str:
    """``r1-8192-c4``, or ``r1-8192-rate2.0`` at 2 requests per second: stable across arms, so the same run
    gets the same prompts everywhere."""
    level = f"rate{rate_text(float(load))}" if open_loop else f"c{load}"
    return f"r{repetition}-{input_nominal}-{level}"


def request_body(
    wl: PlanWorkload, model: str, book: PromptBook, key: str, target_tokens: int, max_tokens: int | None = None, prefix: int | None = None
) -> dict[str, Any]:
    """The chat-completions body of request ``key``: same text and seed in every arm (opening with shared
    prefix ``prefix`` when given); ``max_tokens`` (a trace line's output length) in place of the plan's."""
    return {
        **wl.extra_body,
        "model": model,
        "messages": book.messages(key, target_tokens, prefix),
        "max_tokens": wl.max_tokens if max_tokens is None else max_tokens,
        "temperature": wl.temperature,
        "seed": PromptBook.request_seed(wl.seed, key),
    }


async def send_scheduled(
    client: httpx.AsyncClient,
    url: str,
    bodies: list[dict[str, Any]],
    offsets: list[float],
    *,
    start: float,
    clock: Clock,
    timeout: float,
    max_in_flight: int | None = None,
) -> list[Outcome]:
    """Send ``bodies[i]`` at ``start + offsets[i]`` (open loop, :func:`~.arrivals.send_open`); outcomes in body
    order, each one's send wait counted from its due time (the send lag)."""
    outcomes: list[Outcome | None] = [None] * len(bodies)

    async def send(index: int, lane: int, due: float) -> None:
        outcomes[index] = await stream_chat(client, url, bodies[index], clock=clock, timeout=timeout, lane=lane, due=due)

    await send_open(offsets, start, send, clock=clock, max_in_flight=max_in_flight)
    return [o for o in outcomes if o is not None]


async def send_all(
    client: httpx.AsyncClient,
    url: str,
    bodies: list[dict[str, Any]],
    *,
    concurrency: int,
    clock: Clock,
    timeout: float,
) -> list[Outcome]:
    """Send ``bodies`` with at most ``concurrency`` in flight (closed loop); outcomes in body order.

    Slot ``i`` sends on lane ``i`` (its own connection with the collector's client, see
    :mod:`.connections`): the lanes :func:`~.connections.open_connections` opened.
    """
    outcomes: list[Outcome | None] = [None] * len(bodies)
    queue = iter(range(len(bodies)))

    async def worker(lane: int) -> None:
        for index in queue:  # shared iterator: each index is taken by exactly one worker
            outcomes[index] = await stream_chat(client, url, bodies[index], clock=clock, timeout=timeout, lane=lane)

    await asyncio.gather(*(worker(lane) for lane in range(min(concurrency, len(bodies)))))
    return [o for o in outcomes if o is not None]


def timing_fields(outcome: Outcome, t0: float) -> dict[str, Any]:
    """A request's timing and usage fields: ``t_send_s`` (seconds since ``t0``, the arm's start on the
    same monotonic clock), then the durations of :meth:`~.client.Outcome.record`."""
    return {"t_send_s": round(outcome.t_send - t0, 6), **outcome.record()}


def request_record(
    outcome: Outcome,
    *,
    run: str,
    repetition: int,
    input_nominal: int,
    index: int,
    warmup: bool,
    key: str,
    t0: float,
    concurrency: int | None = None,
    rate: float | None = None,
    prefix: int | None = None,
) -> dict[str, Any]:
    """A journal ``request`` record; ``t_send_s`` is seconds since the arm began (monotonic)."""
    return record_of(
        timing_fields(outcome, t0),
        run=run,
        repetition=repetition,
        input_nominal=input_nominal,
        concurrency=concurrency,
        rate=rate,
        index=index,
        warmup=warmup,
        key=key,
        prefix=prefix,
    )


def record_of(
    timing: dict[str, Any],
    *,
    run: str,
    repetition: int,
    input_nominal: int,
    index: int,
    warmup: bool,
    key: str,
    concurrency: int | None = None,
    rate: float | None = None,
    prefix: int | None = None,
    conversation: int | None = None,
    turn: int | None = None,
) -> dict[str, Any]:
    """A journal ``request`` record from its :func:`timing_fields` (measured here or by a worker process):
    the timing fields first, then where the request belongs, which the collector alone says (a worker's
    reply cannot move its record to another run, index or key). Its group's load is ``concurrency`` (closed
    loop) or ``rate`` (open loop): exactly one is given."""
    load = {"concurrency": concurrency} if rate is None else {"rate": rate}
    where: dict[str, Any] = {
        "type": "request",
        "run": run,
        "repetition": repetition,
        "input_nominal": input_nominal,
        **load,
        "index": index,
        "warmup": warmup,
        "key": key,
    }
    if prefix is not None:
        where["prefix"] = prefix
    if turn is not None:  # a multi-turn workload's: absent in a single-turn one, whose journals stay as they were
        where["conversation"], where["turn"] = conversation, turn
    return {**where, **timing, **where}  # the journal's field order, the collector's values


def client_sums(records: list[dict[str, Any]]) -> dict[str, int]:
    """What the engine's counters should have grown by: completed requests and their usage, and, when every
    one of them reported its cached prompt tokens, the prefix cache's hits (those tokens) and queries (every
    prompt token is looked up, as vLLM counts them)."""
    done = [r for r in records if r["ok"]]
    sums = {
        "requests": len(done),
        "prompt_tokens": sum(r["prompt_tokens"] or 0 for r in done),
        "generation_tokens": sum(r["completion_tokens"] or 0 for r in done),
    }
    if done and all(r.get("cached_tokens") is not None for r in done):
        sums["prefix_cache_hits"] = sum(r["cached_tokens"] for r in done)
        sums["prefix_cache_queries"] = sums["prompt_tokens"]
    return sums


async def scrape_retrying(
    client: httpx.AsyncClient,
    base_url: str,
    dialect: Dialect,
    *,
    attempts: int = 3,
    pause_s: float = 0.2,
) -> Scrape | None:
    """``/metrics``, tried up to ``attempts`` times ``pause_s`` apart; ``None`` if every try failed."""
    for attempt in range(attempts):
        found = await scrape(client, base_url, dialect)
        if found is not None or attempt + 1 == attempts:
            return found
        await asyncio.sleep(pause_s)
    return None


async def settle_counters(
    client: httpx.AsyncClient,
    base_url: str,
    before: dict[str, float] | None,
    sums: dict[str, int],
    dialect: Dialect,
    *,
    attempts: int = 6,
    pause_s: float = 0.1,
) -> tuple[bool | None, dict[str, list[float]] | None, list[str], dict[str, float] | None]:
    """Scrape until the deltas reconcile (engines may count a request just after its last byte).

    Bounded: at most ``attempts`` scrapes ``pause_s`` apart; the last verdict stands.
    Returns verdict, counters, mismatches and the process gauges of the last scrape.
    """
    if before is None:
        return None, None, ["no /metrics before the run"], None
    verdict: bool | None = None
    counters: dict[str, list[float]] | None = None
    problems: list[str] = ["no /metrics after the run"]
    gauges: dict[str, float] | None = None
    for attempt in range(attempts):
        after = await scrape(client, base_url, dialect)
        if after is not None:
            gauges = after.gauges()
            verdict, counters, problems = reconcile(before, after.counters(), sums)
            if verdict is not False:
                break
        if attempt + 1 < attempts:
            await asyncio.sleep(pause_s)
    return verdict, counters, problems, gauges


def median_or_none(values: list[float | None]) -> float | None:
    """Median of the numbers present (for progress display only; analyze computes the evidence)."""
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None
