"""``trial.json``: the plan as run, its decision rule and its arms."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, NonNegativeInt, PositiveInt, model_validator

from ._base import Record, RelPath, Slug
from .phase import PHASES, Phase

__all__ = ["DecisionRule", "Guardrail", "Workload", "ArmRef", "Trial", "TRIAL_SCHEMA", "CONFIDENCES"]

TRIAL_SCHEMA = "evidence-kit/trial/v1"
Metric = Literal["e2e_s", "ttft_s", "ttft_content_s"]
GuardedMetric = Literal["e2e_s", "ttft_s", "ttft_content_s", "completion_tokens"]
Confidence = Literal["point", "significant", "bound"]
CONFIDENCES: tuple[str, ...] = ("point", "significant", "bound")


class Guardrail(Record):
    """A figure the candidate must not make worse, declared with the rule and checked like it.

    Exactly one bound: ``max_regression`` (a fraction; the candidate's statistic may
    be at most that much *higher* than the controls', ``0`` for "must not regress")
    or ``max_change`` (a fraction, either direction: "must not change by more than").
    """

    metric: GuardedMetric
    statistic: Literal["median", "p90", "p99"] = "median"
    max_regression: float | None = Field(default=None, ge=0, lt=10)
    max_change: float | None = Field(default=None, ge=0, lt=1)

    @model_validator(mode="after")
    def _one_bound(self) -> Guardrail:
        if (self.max_regression is None) == (self.max_change is None):
            raise ValueError("a guardrail declares exactly one of max_regression and max_change")
        return self


class DecisionRule(Record):
    """The predeclared rule that turns medians into a verdict."""

    metric: Metric = "e2e_s"
    statistic: Literal["median"] = "median"
    min_improvement: float = Field(gt=0, lt=1)
    against: Literal["both-controls"] = "both-controls"
    promote_if: Literal["any-group", "all-groups"] = "any-group"
    confidence: Confidence = Field(
        default="point",
        description="point: the point estimates clear the threshold (the original rule); significant: and each "
        "interval excludes no change; bound: the conservative end of each interval clears the threshold")
    guardrails: list[Guardrail] = Field(default_factory=list)


class Workload(Record):
    """The input x concurrency matrix every arm runs."""

    input_nominal: list[PositiveInt] = Field(min_length=1)
    concurrency: list[PositiveInt] = Field(min_length=1)
    repetitions: PositiveInt
    requests_per_run: PositiveInt
    max_tokens: PositiveInt
    temperature: float = Field(ge=0)
    warmup_requests: NonNegativeInt = 0
    seed: int | None = Field(default=None, description="base of every prompt's text and every request's seed")
    extra_body: dict[str, Any] | None = Field(default=None, description="the plan's other request-body fields")

    @model_validator(mode="after")
    def _unique(self) -> Workload:
        for name in ("input_nominal", "concurrency"):
            values = getattr(self, name)
            if len(set(values)) != len(values):
                raise ValueError(f"{name} lists a value twice")
        return self

    def groups(self) -> list[tuple[int, int]]:
        """Every (input_nominal, concurrency) cell, in plan order."""
        return [(i, c) for i in self.input_nominal for c in self.concurrency]

    @property
    def planned_per_arm(self) -> int:
        """Timed requests one arm must complete."""
        return len(self.groups()) * self.repetitions * self.requests_per_run


class ArmRef(Record):
    """One arm of the A/B/A sequence and the journal it wrote."""

    seq: PositiveInt
    arm: Slug
    role: Literal["control", "candidate"]
    phase: Phase
    journal: RelPath
    label: str | None = Field(default=None, max_length=200)


class Trial(Record):
    """A whole A/B/A trial as it was run."""

    schema_: Literal["evidence-kit/trial/v1"] = Field(alias="schema")
    trial_id: Slug
    title: str = Field(min_length=1, max_length=300)
    engine_kind: Literal["vllm", "openai-compatible", "simulated"]
    decision_rule: DecisionRule
    workload: Workload
    arms: list[ArmRef] = Field(min_length=3, max_length=3)
    gates: list[str] | None = Field(default=None, description="the functional gates every arm ran, by name")

    model_config = Record.model_config | {"populate_by_name": True}

    @model_validator(mode="after")
    def _a_b_a(self) -> Trial:
        phases = [a.phase for a in self.arms]
        if phases != list(PHASES):
            raise ValueError("arms must be before, candidate, restored, in that order")
        if [a.seq for a in self.arms] != [1, 2, 3]:
            raise ValueError("arm seq must be 1, 2, 3")
        before, candidate, restored = self.arms
        if before.role != "control" or restored.role != "control" or candidate.role != "candidate":
            raise ValueError("before and restored arms are controls, the candidate arm is the candidate")
        if before.arm != restored.arm:
            raise ValueError("the restored arm must be the same arm as the before arm")
        if candidate.arm == before.arm:
            raise ValueError("the candidate arm must differ from the control arm")
        if len({a.journal for a in self.arms}) != 3:
            raise ValueError("each arm needs its own journal")
        return self

    def arm(self, phase: str) -> ArmRef:
        """The arm measured in ``phase``."""
        return next(a for a in self.arms if a.phase == phase)

    @property
    def simulated(self) -> bool:
        return self.engine_kind == "simulated"
