"""``trial.json``: the plan as run, its decision rule and its arms.

A trial alternates two arms, the control (A) and the candidate (B): A/B/A by default,
or a longer design such as A/B/A/B/A or A/B/B/A that starts and ends with the control.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, model_validator

from ._base import Record, RelPath, Slug
from .engine_kinds import EngineKind  # what was measured (docs/engines.md)
from .phase import Phase
from .publication import PROSE, PUBLIC
from .texts import GATE_NAMES

__all__ = [
    "ClientBounds",
    "DecisionRule",
    "DeclaredRule",
    "Guardrail",
    "Slo",
    "Workload",
    "Arrival",
    "ARRIVALS",
    "Load",
    "rate_text",
    "ArmRef",
    "Trial",
    "TRIAL_SCHEMA",
    "CONFIDENCES",
    "ORDER_KEY",
    "Order",
    "HEADER_TOKEN",
    "design_name",
    "phase_of",
]

TRIAL_SCHEMA = "evidence-kit/trial/v1"
Metric = Literal["e2e_s", "ttft_s", "ttft_content_s", "goodput"]
# How an open-loop run's requests arrive: Poisson (exponential gaps, as vLLM's --request-rate and GuideLLM's
# poisson profile) or constant (equal gaps); seeded, the same schedule in every arm (collect/arrivals.py).
# ``trace``: the due times of a replayed request trace ([workload] trace), private to the operator.
Arrival = Literal["poisson", "constant", "trace"]
ARRIVALS: tuple[str, ...] = ("poisson", "constant", "trace")
Load = int | float  # a group's concurrency, or its rate (requests per second)
Order = Literal["fixed", "randomised"]
# The dialects the simulator speaks.
SimulatedDialect = Literal["vllm", "sglang", "llama.cpp"]
# An HTTP header name (RFC 9110's token): what a multi-turn workload's session_header may be.
HEADER_TOKEN = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
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

    metric: Annotated[GuardedMetric, PUBLIC]
    statistic: Annotated[Literal["median", "p90", "p99"], PUBLIC] = "median"
    max_regression: Annotated[float | None, PUBLIC] = Field(default=None, ge=0, lt=10)
    max_change: Annotated[float | None, PUBLIC] = Field(default=None, ge=0, lt=1)

    @model_validator(mode="after")
    def _one_bound(self) -> Guardrail:
        if (self.max_regression is None) == (self.max_change is None):
            raise ValueError("a guardrail declares exactly one of max_regression and max_change")
        return self


class DecisionRule(Record):
    """The predeclared rule that turns medians into a verdict. Unknown fields are refused (a misspelt
    ``confidence`` or ``promote_if`` must not leave the rule at its laxer default)."""

    model_config = Record.model_config | {"extra": "forbid"}

    metric: Annotated[Metric, PUBLIC] = Field(
        default="e2e_s",
        description="the decision metric: a latency (lower is better) or "
        "goodput, the share of timed requests that met every declared SLO (higher is better)",
    )
    statistic: Annotated[Literal["median", "share"], PUBLIC] = Field(
        default="median",
        description="median for a latency; share (the mean of each request's good-or-not) for goodput, the only statistic each allows",
    )
    min_improvement: Annotated[float, PUBLIC] = Field(gt=0, lt=1)
    against: Annotated[Literal["both-controls"], PUBLIC] = "both-controls"
    promote_if: Annotated[Literal["any-group", "all-groups"], PUBLIC] = "any-group"
    confidence: Annotated[Confidence, PUBLIC] = Field(
        default="point",
        description="point: the point estimates clear the threshold (the original rule; no error control); "
        "significant: and each interval excludes no change; bound: the conservative end of each interval clears the "
        "threshold (the default under statistics = 4)",
    )
    statistics: Annotated[Literal[3, 4] | None, PUBLIC] = Field(
        default=None,
        description="the statistics version the trial is judged by: 4 (launch-level intervals, bound by default, "
        "Holm's step-down over the groups, longer designs decided on the drift-corrected control; "
        "docs/analysis.md); absent or 3: version 3, as every trial before it",
    )
    guardrails: list[Guardrail] = Field(default_factory=list)
    max_timing_gap_ms: Annotated[float | None, PUBLIC] = Field(
        default=None,
        gt=0,
        description="the most a run's mean client time may differ from the engine's own (its TTFT and end-to-end "
        "histograms), in milliseconds, either way; a run beyond it, or a run where it could not be checked (a time "
        "not comparable or not reconcilable), blocks promotion. Absent: the gap is shown, not checked",
    )

    @model_validator(mode="before")
    @classmethod
    def _goodput_share(cls, data: Any) -> Any:
        # goodput has one statistic: a rule that names the metric alone means it.
        if isinstance(data, dict) and data.get("metric") == "goodput" and "statistic" not in data:
            data = {**data, "statistic": "share"}
        # Under statistics 4 a win means what it says: the whole interval beyond the threshold, unless the
        # rule asks for another confidence in so many words.
        if isinstance(data, dict) and data.get("statistics") == 4 and "confidence" not in data:
            data = {**data, "confidence": "bound"}
        return data

    @property
    def version(self) -> int:
        """The statistics version the rule is judged by (3 where it declares none)."""
        return self.statistics or 3

    @model_validator(mode="after")
    def _statistic_fits(self) -> DecisionRule:
        if (self.metric == "goodput") != (self.statistic == "share"):
            raise ValueError(
                f"statistic {self.statistic!r} does not fit metric {self.metric!r}: goodput is judged by its share, a latency by its median"
            )
        return self

    @property
    def higher_is_better(self) -> bool:
        """Goodput improves upwards; every latency downwards."""
        return self.metric == "goodput"


class DeclaredRule(DecisionRule):
    """The rule as an operator declares it for a new trial (a plan's ``[decision_rule]``, an import's rule
    file): judged by statistics 4 unless it names another version, so a win means what it says (the whole
    interval beyond the threshold, one error budget over the groups) without being asked for. ``trial.json``
    records the version, and a ``trial.json`` that records none stays version 3: published evidence keeps its
    figures and its verdicts."""

    @model_validator(mode="before")
    @classmethod
    def _version_4_unless_named(cls, data: Any) -> Any:
        if isinstance(data, dict) and "statistics" not in data:
            data = {**data, "statistics": 4, **({} if "confidence" in data else {"confidence": "bound"})}
        return data


class Slo(Record):
    """Service-level objectives: a timed request is *good* when it succeeded and met every one declared
    (DistServe's goodput; vLLM bench serve's ``--goodput``). Milliseconds; a request meets a bound at or
    below it. Unknown fields are refused, as in the rule: a misspelt SLO must not silently count as met."""

    model_config = Record.model_config | {"extra": "forbid"}

    ttft_ms: Annotated[float | None, PUBLIC] = Field(default=None, gt=0, description="the most a request's time to first token (ttft_s) may be")
    tpot_ms: Annotated[float | None, PUBLIC] = Field(
        default=None,
        gt=0,
        description="the most a request's time per output token may "
        "be: (e2e_s - ttft_s) / (completion_tokens - 1), 0 for one token or none (as vLLM)",
    )
    e2e_ms: Annotated[float | None, PUBLIC] = Field(default=None, gt=0, description="the most a request's end-to-end time (e2e_s) may be")

    @model_validator(mode="after")
    def _some(self) -> Slo:
        if self.ttft_ms is None and self.tpot_ms is None and self.e2e_ms is None:
            raise ValueError("an [slo] table declares at least one of ttft_ms, tpot_ms and e2e_ms")
        return self


class ClientBounds(Record):
    """How busy the client may be before its timings are not trusted, declared before the trial ran.

    A run whose client exceeds one (``analyze`` judges the run record's raw values) is a
    ``client-saturated`` finding and blocks promotion. The defaults leave a margin of several
    times over what a healthy collector measured on the simulator at concurrency 1 to 32
    (docs/benchmarks.md). Unknown fields are refused, as in the rule: a misspelt bound must
    not leave the default in force.
    """

    model_config = Record.model_config | {"extra": "forbid"}

    max_loop_lag_s: Annotated[float, PUBLIC] = Field(
        default=0.2, gt=0, description="the most any process's event loop may run late (the run's loop_lag_max_s)"
    )
    max_loop_lag_p50_s: Annotated[float, PUBLIC] = Field(
        default=0.025,
        gt=0,
        description="the most any process's event loop may "
        "run late at the median (the run's loop_lag_p50_s): a loop late on every wake "
        "(starved of CPU by a quota, other load or another thread) that no single wake "
        "shows",
    )
    max_send_wait_s: Annotated[float, PUBLIC] = Field(
        default=1.0, gt=0, description="the longest any timed request of the run may wait inside the client before it is sent (send_wait_s)"
    )
    max_cpu_share: Annotated[float, PUBLIC] = Field(
        default=0.9,
        gt=0,
        le=1,
        description="the largest share of one core the thread running a process's event loop may use over the run (loop_cpu_s / wall_s)",
    )
    max_rate_shortfall: Annotated[float | None, PUBLIC] = Field(
        default=None,
        gt=0,
        lt=1,
        description="open-loop runs: the most the achieved arrival rate (requests started "
        "per second) may fall below the rate of the run's own schedule, as a fraction; absent: 0.05. A client that "
        "cannot keep to the schedule sends late (send_wait_s, from each request's due time) and slower",
    )

    @property
    def rate_shortfall(self) -> float:
        """The open-loop rate bound in force: the declared one, or 0.05 (5 %) when none is declared."""
        return 0.05 if self.max_rate_shortfall is None else self.max_rate_shortfall


class Workload(Record):
    """The input x load matrix every arm runs: each load a concurrency (closed loop) or an arrival rate
    (open loop), exactly one of the two."""

    input_nominal: Annotated[list[PositiveInt], PUBLIC] = Field(min_length=1)
    concurrency: Annotated[list[PositiveInt] | None, PUBLIC] = Field(
        default=None, min_length=1, description="requests kept in flight (closed loop); absent in an open-loop workload"
    )
    rate: Annotated[list[PositiveFloat] | None, PUBLIC] = Field(
        default=None, min_length=1, description="requests started per second (open loop), each sent at its scheduled time whatever is in flight"
    )
    arrival: Annotated[Arrival | None, PUBLIC] = Field(
        default=None,
        description="the open-loop schedule: poisson or constant gaps, "
        "seeded from seed, input and rate (the same in every arm and repetition), or "
        "trace: a replayed request trace's arrivals (the trace itself is private)",
    )
    max_in_flight: Annotated[PositiveInt | None, PUBLIC] = Field(
        default=None, description="the most open-loop requests in flight; a request due beyond it waits (its wait is send lag)"
    )
    repetitions: Annotated[PositiveInt, PUBLIC]
    requests_per_run: Annotated[PositiveInt, PUBLIC]
    max_tokens: Annotated[PositiveInt | None, PUBLIC] = Field(
        default=None, description="output cap of every timed request; absent only in a trial imported from a client whose file does not record it"
    )
    temperature: Annotated[float | None, PUBLIC] = Field(
        default=None, ge=0, description="sampling temperature; absent only in a trial imported from a client whose file does not record it"
    )
    cells: Annotated[list[Annotated[list[PositiveInt | PositiveFloat], Field(min_length=2, max_length=2)]] | None, PUBLIC] = Field(
        default=None,
        min_length=1,
        description="the groups run, each [input_nominal, load], when they are not every pairing of input_nominal "
        "and the loads (an imported sweep whose levels differ in prompt size); absent: every pairing",
    )
    warmup_requests: Annotated[NonNegativeInt, PUBLIC] = 0
    seed: Annotated[int | None, PUBLIC] = Field(default=None, description="base of every prompt's text and every request's seed")
    extra_body: Annotated[dict[str, Any] | None, PROSE] = Field(default=None, description="the plan's other request-body fields")
    order: Annotated[Order | None, PUBLIC] = Field(
        default=None,
        description="the order of the groups within a repetition: fixed "
        "(plan order; also when absent) or randomised (shuffled per repetition from seed)",
    )
    prefix_tokens: Annotated[PositiveInt | None, PUBLIC] = Field(
        default=None,
        description="shared-prefix workloads: the tokens of each shared prefix (the chat template and "
        "instruction included) every prompt of a prefix group opens with; absent: every prompt is unique",
    )
    prefixes: Annotated[PositiveInt | None, PUBLIC] = Field(
        default=None, description="how many distinct shared prefixes there are; each request takes one, seeded by its key (the same in every arm)"
    )
    prefix_inputs: Annotated[list[PositiveInt] | None, PUBLIC] = Field(
        default=None, description="the input sizes whose groups carry the shared prefixes (absent with prefixes: all)"
    )
    prime_prefixes: Annotated[bool | None, PUBLIC] = Field(
        default=None,
        description="before each run of a shared-prefix group the collector sent one untimed request "
        "per shared prefix, so every run starts with them cached",
    )
    turns: Annotated[int | None, PUBLIC] = Field(
        default=None,
        ge=2,
        description="multi-turn workloads: the turns of every conversation, 2 or more (each of "
        "a run's requests_per_run is a conversation; turn k+1 re-sends the history and turn k's answer); absent: "
        "1, which is never written",
    )
    session_header: Annotated[str | None, PROSE] = Field(
        default=None,
        pattern=HEADER_TOKEN,
        max_length=128,
        description="multi-turn workloads: the HTTP header whose value, one per conversation, went with every turn "
        "(a sticky session: one replica serves the whole conversation)",
    )

    @model_validator(mode="after")
    def _unique(self) -> Workload:
        if (self.concurrency is None) == (self.rate is None):
            raise ValueError("a workload has exactly one of concurrency (closed loop) and rate (open loop)")
        if self.rate is None and (self.arrival is not None or self.max_in_flight is not None):
            raise ValueError("arrival and max_in_flight belong to an open-loop workload (rate)")
        if self.rate is not None and self.arrival is None:
            raise ValueError("an open-loop workload (rate) names its arrival: poisson or constant")
        for name in ("input_nominal", "concurrency", "rate"):
            values = getattr(self, name) or []
            if len(set(values)) != len(values):
                raise ValueError(f"{name} lists a value twice")
        self._check_cells()
        if self.order == "randomised" and self.seed is None:
            raise ValueError("order randomised needs a seed to shuffle from")
        if (self.prefix_tokens is None) != (self.prefixes is None):
            raise ValueError("prefix_tokens and prefixes come together (the size of each shared prefix, and how many)")
        if self.session_header is not None and self.turns is None:
            raise ValueError("session_header belongs to a multi-turn workload (turns)")
        if self.turns is not None and self.rate is not None:
            raise ValueError(
                "turns belongs to a closed-loop workload (concurrency): a conversation's next turn is sent when its previous answer ends"
            )
        return self

    def _check_cells(self) -> None:
        if self.cells is None:
            return
        if not all(isinstance(i, int) for i, _ in self.cells):
            raise ValueError("a cell's input (its first value) is a whole number of tokens")
        if len({(i, float(c)) for i, c in self.cells}) != len(self.cells):
            raise ValueError("cells lists a group twice")
        inputs, loads = {i for i, _ in self.cells}, {float(load) for _, load in self.cells}
        if inputs != set(self.input_nominal) or loads != {float(x) for x in self.loads}:
            raise ValueError("cells uses every value of input_nominal and of the loads, and no other")

    @property
    def turns_per_conversation(self) -> int:
        """The turns of each conversation: 1 in a single-turn workload."""
        return self.turns or 1

    @property
    def timed_per_run(self) -> int:
        """Timed requests one run holds: every turn of each of its ``requests_per_run`` conversations."""
        return self.requests_per_run * self.turns_per_conversation

    @property
    def open_loop(self) -> bool:
        """Requests arrive at a rate (open loop), not at a concurrency."""
        return self.rate is not None

    def prefixed(self, input_nominal: int) -> bool:
        """Whether the prompts of groups at ``input_nominal`` open with one of the shared prefixes."""
        if self.prefix_tokens is None:
            return False
        return self.prefix_inputs is None or input_nominal in self.prefix_inputs

    @property
    def loads(self) -> list[int] | list[float]:
        """The concurrencies, or the rates of an open-loop workload: the second key of every group."""
        return self.rate if self.rate is not None else self.concurrency or []

    def groups(self) -> list[tuple[int, Load]]:
        """Every (input_nominal, load) cell, in plan order; the load a concurrency or a rate. Only the
        recorded ``cells`` when the workload has them (never their product: a product would invent groups
        that never ran)."""
        if self.cells is not None:
            loads = {float(x): x for x in self.loads}
            return [(int(i), loads[float(c)]) for i, c in self.cells]
        return [(i, c) for i in self.input_nominal for c in self.loads]

    def load_label(self, load: Load) -> str:
        """'C4' for concurrency 4, 'R2.0' for 2 requests per second: the group label's second part."""
        return f"R{rate_text(float(load))}" if self.open_loop else f"C{load}"

    def groups_in(self, repetition: int) -> list[tuple[int, Load]]:
        """The groups in the order repetition ``repetition`` of every arm runs them: plan order, or for
        ``order`` randomised, sorted by the sha256 of ``ORDER_KEY``, seed, repetition, input and
        concurrency joined by U+001F (a shuffle any reader can redo, the same in every arm)."""
        groups = self.groups()
        if self.order != "randomised":
            return groups

        def key(group: tuple[int, Load]) -> bytes:
            parts = (ORDER_KEY, str(self.seed), str(repetition), str(group[0]), str(group[1]))
            return hashlib.sha256("\x1f".join(parts).encode()).digest()

        return sorted(groups, key=key)

    def run_order(self) -> list[tuple[int, int, Load]]:
        """Every timed run as (repetition, input_nominal, concurrency), in the order an arm runs them:
        repetition by repetition, the groups of each in :meth:`groups_in` order."""
        return [(rep, i, c) for rep in range(1, self.repetitions + 1) for i, c in self.groups_in(rep)]

    @property
    def planned_per_arm(self) -> int:
        """Timed requests one arm must complete."""
        return len(self.groups()) * self.repetitions * self.timed_per_run


def rate_text(rate: float) -> str:
    """A rate as labels and run ids write it: the shortest text that reads back as the same float (2.0, 0.25)."""
    return repr(float(rate))


class ArmRef(Record):
    """One arm of the trial's sequence (one block of its design) and the journal it wrote."""

    seq: Annotated[PositiveInt, PUBLIC]
    arm: Annotated[Slug, PROSE]
    role: Annotated[Literal["control", "candidate"], PUBLIC]
    phase: Annotated[Phase, PUBLIC]
    journal: Annotated[RelPath, PROSE]
    label: Annotated[str | None, PROSE] = Field(default=None, max_length=200)
    block: Annotated[PositiveInt | None, PUBLIC] = Field(
        default=None, description="the arm's place among the arms of its phase (1, 2, ...); present in every arm of a design other than A/B/A"
    )


def design_name(roles: Sequence[str]) -> str:
    """'A/B/A', 'A/B/A/B/A', 'A/B/B/A': the control (A) and candidate (B) arms in run order."""
    return "/".join("A" if role == "control" else "B" for role in roles)


def phase_of(position: int, role: str) -> Phase:
    """The phase of the arm at ``position`` (0-based) with ``role``: the first arm is before, every
    candidate arm is candidate, every later control arm is restored."""
    return "before" if position == 0 else "candidate" if role == "candidate" else "restored"


class Trial(Record):
    """A whole trial as it was run: A/B/A, or a longer alternation of the same two arms."""

    schema_: Annotated[Literal["evidence-kit/trial/v1"], PUBLIC] = Field(alias="schema")
    trial_id: Annotated[Slug, PROSE]
    title: Annotated[str, PROSE] = Field(min_length=1, max_length=300)
    engine_kind: Annotated[EngineKind, PUBLIC]
    dialect: Annotated[SimulatedDialect | None, PUBLIC] = Field(
        default=None, description="the metric names a simulated engine spoke; absent: vLLM's (only with engine_kind simulated)"
    )
    decision_rule: DecisionRule
    workload: Workload
    arms: list[ArmRef] = Field(min_length=3)
    gates: Annotated[list[Annotated[str, GATE_NAMES]] | None, PUBLIC] = Field(default=None, description="the functional gates every arm ran, by name")
    client: ClientBounds = Field(
        default_factory=ClientBounds,
        description="the bounds of the client's own health; absent in trial.json written before them, which reads as the defaults",
    )
    slo: Slo | None = Field(default=None, description="the service-level objectives goodput counts against; absent: no goodput")

    model_config = Record.model_config | {"populate_by_name": True}

    @model_validator(mode="after")
    def _goodput_slo(self) -> Trial:
        if self.decision_rule.metric == "goodput" and self.slo is None:
            raise ValueError("the decision rule's metric is goodput, but no slo is declared to count it against")
        return self

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
            raise ValueError(
                "the second arm must be the candidate (A/B/...): a control arm before it would be a restoration that never followed a candidate"
            )
        for position, a in enumerate(arms):
            if a.phase != phase_of(position, a.role):
                raise ValueError(
                    f"arm {a.seq} must have phase {phase_of(position, a.role)} (the first arm is before, "
                    "every candidate arm candidate, every later control arm restored)"
                )
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
