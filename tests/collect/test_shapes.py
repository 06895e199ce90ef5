"""The workload shapes' registry: each run of a plan is made by the one shape that claims it, the same
objects whose checks load_plan runs, and each shape's requests are the same in every arm."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.collect.plan import PlanWorkload, load_plan
from evidence_kit.collect.prompts import Calibration, PromptBook
from evidence_kit.collect.shapes import SHAPE_FIELDS, SHAPES, shape_of
from evidence_kit.collect.stages.timed_runs import runs_to_do

from .conftest import write_plan
from .test_trace import _plan as trace_plan
from .test_trace import _trace

CASES = {
    "closed-loop": {},
    "open-loop": {"concurrency": None, "rate": [2.0]},
    "shared-prefix": {"input_nominal": [256, 512], "prefix_tokens": 64, "prefixes": 2, "prefix_inputs": [512]},
    "multi-turn": {"turns": 3},
}


def _load(tmp_path: Path, case: str):
    if case == "trace-replay":
        _trace(tmp_path)
        return load_plan(trace_plan(tmp_path))
    workload = {k: v for k, v in CASES[case].items() if v is not None}
    plan = write_plan(tmp_path / "plan.toml", workload=workload)
    if CASES[case].get("concurrency", 1) is None:
        plan.write_text("\n".join(line for line in plan.read_text().splitlines() if not line.startswith("concurrency =")) + "\n")
    return load_plan(plan)


def _book(plan) -> PromptBook:
    wl = plan.workload
    return PromptBook(
        wl.instruction,
        wl.seed,
        Calibration(method="tokenize", overhead_tokens=20, tokens_per_word=1.0),
        prefix_tokens=wl.prefix_tokens,
        prefixes=wl.prefixes,
    )


@pytest.mark.parametrize("case", [*CASES, "trace-replay"])
def test_each_run_is_made_by_the_shape_its_workload_names(tmp_path: Path, case: str) -> None:
    plan = _load(tmp_path, case)
    names = {spec.input_nominal: shape_of(plan, spec).name for spec in runs_to_do(plan, set())}
    # A shared-prefix plan's sizes without a prefix (prefix_inputs) are plain closed-loop groups.
    assert names == ({256: "closed-loop", 512: "shared-prefix"} if case == "shared-prefix" else {next(iter(names)): case})


@pytest.mark.parametrize("case", [*CASES, "trace-replay"])
def test_a_shapes_requests_are_the_same_in_every_arm_and_scheduled_only_in_an_open_loop(tmp_path: Path, case: str) -> None:
    plan = _load(tmp_path, case)
    spec = runs_to_do(plan, set())[-1]
    shape = shape_of(plan, spec)
    first, again = shape.batch(plan, "m", _book(plan), spec), shape.batch(plan, "m", _book(plan), spec)
    assert (first.keys, first.bodies, first.prefixes, first.offsets) == (again.keys, again.bodies, again.prefixes, again.offsets)
    turns = plan.workload.turns
    assert len(first.keys) == plan.workload.requests_per_run * turns and len(first.bodies) == plan.workload.requests_per_run
    assert (first.offsets is not None) == (case in ("open-loop", "trace-replay"))
    assert (first.prefixes[0] is not None) == (case == "shared-prefix")
    assert [first.where(i)["turn"] for i in range(turns)] == (list(range(1, turns + 1)) if turns > 1 else [None])


def test_every_key_a_shape_owns_is_a_workload_key_checked_by_its_shape() -> None:
    assert set(SHAPE_FIELDS) <= set(PlanWorkload.model_fields)
    assert len(SHAPE_FIELDS) == len(set(SHAPE_FIELDS))  # one owner each
    assert sorted(shape.name for shape in SHAPES) == ["closed-loop", "multi-turn", "open-loop", "shared-prefix", "trace-replay"]
