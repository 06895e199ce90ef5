"""The engine's own scheduling run in modelled time: no server, no sleeping, no wall-clock noise.

``run_modelled`` drives :class:`Engine` through its two step halves with an injected clock, as
closed-loop clients at a concurrency would: every request of a run is submitted at once up to
the concurrency, and each finished request makes room for the next.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass

from evidence_kit.engine_sim.engine import Engine, Sequence
from evidence_kit.engine_sim.generation import PlanRequest, plan_output, request_rng
from evidence_kit.engine_sim.profile import Profile


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Served:
    """One request's modelled life, seconds since it arrived."""

    ttft: float
    e2e: float
    queued: float
    tokens: int
    planned: int


def run_modelled(profile: Profile, prompt_tokens: int, outputs: list[int], concurrency: int) -> list[Served]:
    """Requests of ``prompt_tokens`` with these output lengths, ``concurrency`` at a time; results in order."""
    clock = _Clock()
    engine = Engine(profile, clock=clock)
    todo = deque(enumerate(outputs))
    live: list[Sequence] = []

    def submit() -> None:
        i, n = todo.popleft()
        plan = plan_output(PlanRequest(prompt=f"request {i}", max_tokens=n, ignore_eos=True), profile.output, profile.seed)
        seq = Sequence(f"r{i}", prompt_tokens, plan, spec_rng=request_rng("accept", profile.seed, i), arrival=clock.now)
        engine.submit(seq)
        live.append(seq)

    for _ in range(min(concurrency, len(outputs))):
        submit()
    while engine.running or engine.waiting:
        admitted, seconds = engine.start_step()
        clock.now += seconds
        done = sum(1 for s in live if s.finished)
        engine.finish_step(admitted)
        for _ in range(sum(1 for s in live if s.finished) - done):
            if todo:
                submit()
    return [_served(s) for s in live]


def _served(seq: Sequence) -> Served:
    assert seq.first_token_at is not None and seq.finished_at is not None and seq.admitted_at is not None
    sent = 0
    while not seq.outbox.empty():
        sent += seq.outbox.get_nowait() or 0
    return Served(
        ttft=seq.first_token_at - seq.arrival,
        e2e=seq.finished_at - seq.arrival,
        queued=seq.admitted_at - seq.arrival,
        tokens=sent,
        planned=len(seq.plan),
    )


def median(values: list[float]) -> float:
    return statistics.median(values)


def p90(values: list[float]) -> float:
    """Nearest-rank 90th percentile, as the analysis computes it."""
    ordered = sorted(values)
    return ordered[-(-9 * len(ordered) // 10) - 1]
