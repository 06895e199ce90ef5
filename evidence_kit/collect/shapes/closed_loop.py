"""Closed loop: ``concurrency`` requests kept in flight, the next sent when one ends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..runs import RunSpec
from .base import Batch, WorkloadShape, numbered_keys, plain_bodies

if TYPE_CHECKING:
    from ..plan import Plan, PlanWorkload
    from ..prompts import PromptBook

__all__ = ["ClosedLoop", "CLOSED_LOOP"]


class ClosedLoop(WorkloadShape):
    """``[workload] concurrency = [...]``: each run at one concurrency."""

    name = "closed-loop"

    def plan_problem(self, wl: PlanWorkload) -> str | None:
        if wl.trace is not None or wl.concurrency is None:
            return None
        if "max_in_flight" in wl.model_fields_set or "arrival" in wl.model_fields_set:
            return "arrival and max_in_flight are for an open-loop workload (rate), not one at a concurrency"
        if wl.requests_per_run < max(wl.concurrency):
            # A run smaller than its level never reaches that concurrency, yet its results would be labelled with it.
            return (
                f"requests_per_run ({wl.requests_per_run}) is below concurrency "
                f"{max(wl.concurrency)}: such a run never has that many requests in flight"
            )
        return None

    def claims(self, plan: Plan, spec: RunSpec) -> bool:
        return not spec.open_loop

    def batch(self, plan: Plan, model: str, book: PromptBook, spec: RunSpec) -> Batch:
        keys = numbered_keys(spec, plan.workload.requests_per_run)
        prefixes: list[int | None] = [None] * len(keys)
        return Batch(keys, plain_bodies(plan.workload, model, book, spec, keys, prefixes), prefixes)


CLOSED_LOOP = ClosedLoop()
