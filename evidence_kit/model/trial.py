"""``trial.json``: the plan as run, its decision rule and its arms.

A trial alternates two arms, the control (A) and the candidate (B): A/B/A by default,
or a longer design such as A/B/A/B/A or A/B/B/A that starts and ends with the control.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, NonNegativeInt, PositiveInt, model_validator

from ._base import Record, RelPath, Slug
from .phase import Phase

__all__ = ["ClientBounds", "DecisionRule", "Guardrail", "Workload", "ArmRef", "Trial", "TRIAL_SCHEMA", "CONFIDENCES", "ORDER_KEY", "Order",
           "design_name", "phase_of"]

TRIAL_SCHEMA = "evidence-kit/trial/v1"
Metric = Literal["e2e_s", "ttft_s", "ttft_content_s"]
Order = Literal["fixed", "randomised"]
# What was measured; each real kind is read in its own dialect (``dialects.py``, ``docs/engines.md``).
EngineKind = Literal["vllm", "sglang", "llama.cpp", "openai-compatible", "simulated"]
# The dialects the simulator speaks.
SimulatedDialect = Literal["vllm", "sglang", "llama.cpp"]
ORDER_KEY = "evidence-kit/order/v1"  # the first part of every randomised run order's sort key
GuardedMetric = Literal["e2e_s", "ttft_s", "ttft_content_s", "completion_tokens"]
Confidence = Literal["point", "significant", "bound"]
CONFIDENCES: tuple[str, ...] = ("point", "significant", "bound")


class Guardrail(Record):
    """A figure the candidate must not make worse, declared with the rule and checked like it.

    Exactly one bound: ``max_regression`` (a fraction; the candidate's statistic may
    be at most that much *higher* than the controls', ``0`` for "must not regress")
    or ``max_change`` (a fraction, either direction: "must not change by more than").
    """

    # The rule is the decision: a field this reader does not know (a typo, or a clause a newer writer
    # added) cannot be applied, so it is refused rather than left at the default.
    model_config = Record.model_config | {"extra": "forbid"}

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
    """The predeclared rule that turns medians into a verdict. Unknown fields are refused (a misspelt
    ``confidence`` or ``promote_if`` must not leave the rule at its laxer default)."""

    model_config = Record.model_config | {"extra": "forbid"}

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
    max_timing_gap_ms: float | None = Field(
        default=None, gt=0,
        description="the most a run's mean client time may differ from the engine's own (its TTFT and end-to-end "
        "histograms), in milliseconds, either way; a run beyond it, or a run where it could not be checked (a time "
        "not comparable or not reconcilable), blocks promotion. Absent: the gap is shown, not checked")


class ClientBounds(Record):
    """How busy the client may be before its timings are not trusted, declared before the trial ran.

    A run whose client exceeds one (``analyze`` judges the run record's raw values) is a
    ``client-saturated`` finding and blocks promotion. The defaults leave a margin of several
    times over what a healthy collector measured on the simulator at concurrency 1 to 32
    (docs/benchmarks.md). Unknown fields are refused, as in the rule: a misspelt bound must
    not leave the default in force.
    """

    model_config = Record.model_config | {"extra": "forbid"}

    max_loop_lag_s: float = Field(default=0.2, gt=0, description="the most any process's event loop may run late "
                                  "(the run's loop_lag_max_s)")
    max_loop_lag_p50_s: float = Field(default=0.025, gt=0, description="the most any process's event loop may "
                                      "run late at the median (the run's loop_lag_p50_s): a loop late on every wake "
                                      "(starved of CPU by a quota, other load or another thread) that no single wake "
                                      "shows")
    max_send_wait_s: float = Field(default=1.0, gt=0, description="the longest any timed request of the run may "
                                   "wait inside the client before it is sent (send_wait_s)")
    max_cpu_share: float = Field(default=0.9, gt=0, le=1, description="the largest share of one core the thread "
                                 "running a process's event loop may use over the run (loop_cpu_s / wall_s)")


class Workload(Record):
    """The input x concurrency matrix every arm runs."""

    input_nominal: list[PositiveInt] = Field(min_length=1)
    concurrency: list[PositiveInt] = Field(min_length=1)
    repetitions: PositiveInt
    requests_per_run: PositiveInt
    max_tokens: PositiveInt | None = Field(default=None, description="output cap of every timed request; absent "
                                           "only in a trial imported from a client whose file does not record it")
    temperature: float | None = Field(default=None, ge=0, description="sampling temperature; absent only in a "
                                      "trial imported from a client whose file does not record it")
    warmup_requests: NonNegativeInt = 0
    seed: int | None = Field(default=None, description="base of every prompt's text and every request's seed")
    extra_body: dict[str, Any] | None = Field(default=None, description="the plan's other request-body fields")
    order: Order | None = Field(default=None, description="the order of the groups within a repetition: fixed "
                                "(plan order; also when absent) or randomised (shuffled per repetition from seed)")

    @model_validator(mode="after")
    def _unique(self) -> Workload:
        for name in ("input_nominal", "concurrency"):
            values = getattr(self, name)
            if len(set(values)) != len(values):
                raise ValueError(f"{name} lists a value twice")
        if self.order == "randomised" and self.seed is None:
            raise ValueError("order randomised needs a seed to shuffle from")
        return self

    def groups(self) -> list[tuple[int, int]]:
        """Every (input_nominal, concurrency) cell, in plan order."""
        return [(i, c) for i in self.input_nominal for c in self.concurrency]

    def groups_in(self, repetition: int) -> list[tuple[int, int]]:
        """The groups in the order repetition ``repetition`` of every arm runs them: plan order, or for
        ``order`` randomised, sorted by the sha256 of ``ORDER_KEY``, seed, repetition, input and
        concurrency joined by U+001F (a shuffle any reader can redo, the same in every arm)."""
        groups = self.groups()
        if self.order != "randomised":
            return groups

        def key(group: tuple[int, int]) -> bytes:
            parts = (ORDER_KEY, str(self.seed), str(repetition), str(group[0]), str(group[1]))
            return hashlib.sha256("\x1f".join(parts).encode()).digest()

        return sorted(groups, key=key)

    def run_order(self) -> list[tuple[int, int, int]]:
        """Every timed run as (repetition, input_nominal, concurrency), in the order an arm runs them:
        repetition by repetition, the groups of each in :meth:`groups_in` order."""
        return [(rep, i, c) for rep in range(1, self.repetitions + 1) for i, c in self.groups_in(rep)]

    @property
    def planned_per_arm(self) -> int:
        """Timed requests one arm must complete."""
        return len(self.groups()) * self.repetitions * self.requests_per_run


class ArmRef(Record):
    """One arm of the trial's sequence (one block of its design) and the journal it wrote."""

    seq: PositiveInt
    arm: Slug
    role: Literal["control", "candidate"]
    phase: Phase
    journal: RelPath
    label: str | None = Field(default=None, max_length=200)
    block: PositiveInt | None = Field(default=None, description="the arm's place among the arms of its phase "
                                      "(1, 2, ...); present in every arm of a design other than A/B/A")


def design_name(roles: Sequence[str]) -> str:
    """'A/B/A', 'A/B/A/B/A', 'A/B/B/A': the control (A) and candidate (B) arms in run order."""
    return "/".join("A" if role == "control" else "B" for role in roles)


def phase_of(position: int, role: str) -> Phase:
    """The phase of the arm at ``position`` (0-based) with ``role``: the first arm is before, every
    candidate arm is candidate, every later control arm is restored."""
    return "before" if position == 0 else "candidate" if role == "candidate" else "restored"


class Trial(Record):
    """A whole trial as it was run: A/B/A, or a longer alternation of the same two arms."""

    schema_: Literal["evidence-kit/trial/v1"] = Field(alias="schema")
    trial_id: Slug
    title: str = Field(min_length=1, max_length=300)
    engine_kind: EngineKind
    dialect: SimulatedDialect | None = Field(default=None, description="the metric names a simulated engine "
                                             "spoke; absent: vLLM's (only with engine_kind simulated)")
    decision_rule: DecisionRule
    workload: Workload
    arms: list[ArmRef] = Field(min_length=3)
    gates: list[str] | None = Field(default=None, description="the functional gates every arm ran, by name")
    client: ClientBounds = Field(default_factory=ClientBounds, description="the bounds of the client's own "
                                 "health; absent in trial.json written before them, which reads as the defaults")

    model_config = Record.model_config | {"populate_by_name": True}

    @model_validator(mode="after")
    def _design(self) -> Trial:
        arms = self.arms
        if [a.seq for a in arms] != list(range(1, len(arms) + 1)):
            raise ValueError("arm seq must be 1, 2, 3, ... in list order")
        if arms[0].role != "control" or arms[-1].role != "control":
            raise ValueError("the first and the last arm must be the control")
        if not any(a.role == "candidate" for a in arms):
            raise ValueError("the arms must include a candidate arm")
        if arms[1].role != "candidate":
            raise ValueError("the second arm must be the candidate (A/B/...): a control arm before it would be a "
                             "restoration that never followed a candidate")
        for position, a in enumerate(arms):
            if a.phase != phase_of(position, a.role):
                raise ValueError(f"arm {a.seq} must have phase {phase_of(position, a.role)} (the first arm is before, "
                                 "every candidate arm candidate, every later control arm restored)")
        if len({a.arm for a in arms if a.role == "control"}) != 1:
            raise ValueError("the restored arm must be the same arm as the before arm (every control arm is one arm)")
        if len({a.arm for a in arms if a.role == "candidate"}) != 1:
            raise ValueError("every candidate arm must be the same arm")
        if arms[0].arm in {a.arm for a in arms if a.role == "candidate"}:
            raise ValueError("the candidate arm must differ from the control arm")
        if len({a.journal for a in arms}) != len(arms):
            raise ValueError("each arm needs its own journal")
        aba = self.design == "A/B/A"
        for a in arms:
            place = sum(b.phase == a.phase for b in arms[: a.seq])
            if a.block is None and not aba:
                raise ValueError(f"arm {a.seq} has no block; in a design other than A/B/A every arm has one")
            if a.block is not None and a.block != place:
                raise ValueError(f"arm {a.seq} has block {a.block}; it is arm {place} of phase {a.phase}")
        return self

    @property
    def design(self) -> str:
        """'A/B/A', 'A/B/A/B/A', 'A/B/B/A': the control (A) and candidate (B) arms in run order."""
        return design_name([a.role for a in self.arms])

    def arm(self, phase: str) -> ArmRef:
        """The first arm measured in ``phase`` (every arm of one phase is the same configuration)."""
        return next(a for a in self.arms if a.phase == phase)

    def arms_of(self, phase: str) -> list[ArmRef]:
        """Every arm measured in ``phase``, in run order."""
        return [a for a in self.arms if a.phase == phase]

    def pooled_in(self, ref: ArmRef) -> Phase | None:
        """The pooled entry an arm's requests enter: ``before`` for the first control block,
        ``candidate`` for every candidate block, ``restored`` for the last control block; None for a
        control block between them, which only the design analysis reads."""
        if ref.phase == "restored" and ref.seq != len(self.arms):
            return None
        return ref.phase

    @property
    def simulated(self) -> bool:
        return self.engine_kind == "simulated"
