"""Trace replay: each request sized and sent when its line of a trace says (an open loop at the trace's pace)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..runs import RunSpec, request_body
from .base import Batch, WorkloadShape, numbered_keys

if TYPE_CHECKING:
    from ..plan import Plan, PlanWorkload
    from ..prompts import PromptBook

__all__ = ["TraceReplay", "TRACE_REPLAY"]

# What a trace sets itself: a plan replaying one may not set them too.
_SET_BY_TRACE = ("input_nominal", "concurrency", "rate", "arrival", "requests_per_run")


class TraceReplay(WorkloadShape):
    """``[workload] trace = "..."``: one run of every line of the trace, at ``trace_time_scale``."""

    name = "trace-replay"

    def plan_problem(self, wl: PlanWorkload) -> str | None:
        if wl.trace is None:
            if "trace_time_scale" in wl.model_fields_set:
                return "trace_time_scale scales a trace's arrivals; [workload] has no trace"
            return None
        given = sorted(k for k in _SET_BY_TRACE if k in wl.model_fields_set)
        if given:
            return f"a trace sets the inputs, the arrivals and the requests of a run itself; [workload] with trace sets no {', '.join(given)}"
        if wl.prefix_tokens is not None:
            return (
                "a trace's prompts are its own (its hash_ids are checked, not replayed as shared "
                "prefixes); [workload] with trace sets no prefix_tokens"
            )
        return None

    def claims(self, plan: Plan, spec: RunSpec) -> bool:
        return plan.trace is not None

    def batch(self, plan: Plan, model: str, book: PromptBook, spec: RunSpec) -> Batch:
        wl, trace = plan.workload, plan.trace
        assert trace is not None
        keys = numbered_keys(spec, wl.requests_per_run)
        bodies = [request_body(wl, model, book, k, line.input_length, max_tokens=line.output_length) for k, line in zip(keys, trace.requests)]
        return Batch(keys, bodies, [None] * len(keys), trace.offsets(wl.trace_time_scale))


TRACE_REPLAY = TraceReplay()
