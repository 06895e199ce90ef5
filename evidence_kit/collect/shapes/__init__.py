"""The workload shapes: one object each, in one registry that both the plan's checks and the runs use.

A plan's ``[workload]`` is a closed loop (``concurrency``), an open loop (``rate``) or a trace replay
(``trace``); its prompts may open with shared prefixes (``prefix_tokens``), or its requests be
conversations of several turns (``turns``). Each shape owns its keys (checked at their lines by
:func:`field_problem`), checks the whole workload (:func:`workload_problem`) and makes and sends the runs
it claims (:func:`shape_of`: the first shape of :data:`SHAPES` that claims a run makes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Batch, Sending, WorkloadShape
from .closed_loop import CLOSED_LOOP
from .multi_turn import MULTI_TURN, RESERVED_HEADERS
from .open_loop import OPEN_LOOP
from .shared_prefix import SHARED_PREFIX
from .trace_replay import TRACE_REPLAY

if TYPE_CHECKING:
    from ..plan import Plan, PlanWorkload
    from ..runs import RunSpec

__all__ = ["SHAPES", "SHAPE_FIELDS", "Batch", "Sending", "WorkloadShape", "shape_of", "field_problem", "workload_problem", "RESERVED_HEADERS"]

# In the order they claim a run: a conversation, a trace line, a shared prefix, then the loop of the group.
SHAPES: tuple[WorkloadShape, ...] = (MULTI_TURN, TRACE_REPLAY, SHARED_PREFIX, OPEN_LOOP, CLOSED_LOOP)
SHAPE_FIELDS: tuple[str, ...] = tuple(name for shape in SHAPES for name in shape.fields)


def shape_of(plan: Plan, spec: RunSpec) -> WorkloadShape:
    """The shape that makes run ``spec`` of ``plan``."""
    return next(shape for shape in SHAPES if shape.claims(plan, spec))


def field_problem(name: str, value: Any, data: dict[str, Any]) -> str | None:
    """Why ``value`` is wrong for the ``[workload]`` key ``name`` (a key some shape owns), or ``None``."""
    return next(shape for shape in SHAPES if name in shape.fields).field_problem(name, value, data)


def _loop_problem(wl: PlanWorkload) -> str | None:
    """A workload without a trace is exactly one of the two loops, over sizes and loads each listed once (a
    repeated one would run the same run id twice: same prompts, one journal entry per id on resume)."""
    if wl.trace is not None:
        return None
    if wl.input_nominal is None:
        return "[workload] has no input_nominal (the prompt sizes) and no trace"
    if (wl.concurrency is None) == (wl.rate is None):
        return (
            "[workload] sets exactly one of concurrency (requests kept in flight: closed loop) and "
            "rate (requests started per second: open loop); it sets " + ("both" if wl.concurrency is not None else "neither")
        )
    for name in ("input_nominal", "concurrency", "rate"):
        values: list[float] = getattr(wl, name) or []
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            return f"{name} lists {', '.join(map(str, repeated))} more than once"
    return None


def workload_problem(wl: PlanWorkload) -> str | None:
    """The first thing wrong with the whole workload, shape by shape, or ``None``."""
    checks = (SHARED_PREFIX.plan_problem, TRACE_REPLAY.plan_problem, _loop_problem, OPEN_LOOP.plan_problem, CLOSED_LOOP.plan_problem)
    return next((problem for check in checks if (problem := check(wl)) is not None), None)
