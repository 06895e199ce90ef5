"""Open loop: requests started at a rate (Poisson or constant arrivals), whatever the engine's pace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..arrivals import schedule
from ..runs import RunSpec
from .base import Batch, WorkloadShape, numbered_keys, plain_bodies

if TYPE_CHECKING:
    from ..plan import Plan, PlanWorkload
    from ..prompts import PromptBook

__all__ = ["OpenLoop", "OPEN_LOOP", "arrival_offsets"]


def arrival_offsets(plan: Plan, spec: RunSpec, count: int) -> list[float] | None:
    """The due times of an open-loop run's requests from its start (``None`` for a closed-loop run)."""
    wl = plan.workload
    if spec.rate is None:
        return None
    return schedule(count, spec.rate, wl.arrival, seed=wl.seed, input_nominal=spec.input_nominal)


class OpenLoop(WorkloadShape):
    """``[workload] rate = [...]``: each run at one rate, its arrivals drawn from the seed."""

    name = "open-loop"

    def plan_problem(self, wl: PlanWorkload) -> str | None:
        if wl.trace is None and wl.rate is not None and wl.requests_per_run < 2:
            return "an open-loop run (rate) needs requests_per_run of at least 2: one request has no arrival rate to achieve"
        return None

    def claims(self, plan: Plan, spec: RunSpec) -> bool:
        return spec.open_loop

    def batch(self, plan: Plan, model: str, book: PromptBook, spec: RunSpec) -> Batch:
        keys = numbered_keys(spec, plan.workload.requests_per_run)
        prefixes: list[int | None] = [None] * len(keys)
        return Batch(keys, plain_bodies(plan.workload, model, book, spec, keys, prefixes), prefixes, arrival_offsets(plan, spec, len(keys)))


OPEN_LOOP = OpenLoop()
