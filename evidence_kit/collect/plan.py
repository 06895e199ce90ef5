"""The trial plan (TOML): what to run, against which engines, judged by which rule.

A plan names its arm configurations under ``[arms.<name>]`` and the ``sequence``
they run in: two of them, alternating, starting and ending with the control
(A/B/A by default; A/B/A/B/A, A/B/B/A, ...). Everything a plan says about
endpoints and commands is private: it goes into journal ``private`` fields and
never into ``trial.json``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..model import ArmRef, ClientBounds, DecisionRule, DeclaredRule, Trial, Workload
from ..model._base import Slug
from ..model.dialects import Dialect, dialect_for
from ..model.engine_kinds import EngineKind
from ..model.trial import Guardrail, Order, SimulatedDialect, Slo, design_name, phase_of
from ..read import read_toml_model
from ..read.validation import line_of_key
from .shapes import SHAPE_FIELDS, field_problem, workload_problem
from .trace import Trace, read_trace

__all__ = [
    "Plan",
    "ArmPlan",
    "PlanWorkload",
    "GatePlan",
    "TelemetryPlan",
    "load_plan",
    "GATE_NAMES",
    "MAX_WORKERS",
    "STREAMS_PER_WORKER",
    "workers_problem",
    "ray_problem",
    "resolve_workers",
    "available_cores",
]

GateName = Literal["smoke", "json", "needle", "tools", "streaming-tools", "tool-result"]
GATE_NAMES: tuple[str, ...] = get_args(GateName)
Role = Literal["control", "candidate"]  # as ArmRef.role


class _Strict(BaseModel):
    # Unknown keys in a plan are typos far more often than intent: refuse them.
    model_config = ConfigDict(extra="forbid")


class PlanGuardrail(Guardrail):
    """A guardrail as the plan declares it: ``trial.json``'s, refusing unknown keys."""

    model_config = Guardrail.model_config | {"extra": "forbid"}


class PlanDecisionRule(DeclaredRule):
    """The decision rule as the plan declares it: ``trial.json``'s, refusing unknown keys (a misspelt
    ``confidence`` must not leave the rule at its default)."""

    model_config = DecisionRule.model_config | {"extra": "forbid"}
    guardrails: list[PlanGuardrail] = Field(default_factory=list)  # type: ignore[assignment]


# The most worker processes a plan may ask for: beyond it the processes, not the load, are the point.
MAX_WORKERS = 64
# Requests in flight one worker process is given before ``workers = "auto"`` adds another: where
# one process's event loop still kept its CPU share and loop lag low against the simulator at a
# high time scale (bench/collect_workers.py; docs/benchmarks.md#worker-processes-benchcollect_workerspy).
STREAMS_PER_WORKER = 64
Workers = Literal["auto"] | int


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, so a container's limit counts)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def workers_problem(value: Any, concurrency: list[int]) -> str | None:
    """Why ``value`` is no ``workers`` setting for a plan at ``concurrency`` (an open-loop plan: its
    ``max_in_flight``, or nothing), or ``None``."""
    if value == "auto":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WORKERS:
        return f'workers must be "auto" or a whole number from 1 to {MAX_WORKERS}, not {value!r}'
    if concurrency and value > max(concurrency):
        return f"workers ({value}) is above the highest concurrency ({max(concurrency)}): a worker process without a request slot would never send"
    return None


def ray_problem(value: Any) -> str | None:
    """Why ``value`` is no ``ray`` setting (a Ray cluster's ``HOST:PORT``, or ``"auto"``), or ``None``."""
    if isinstance(value, str) and (value == "auto" or re.fullmatch(r"[^\s/:]+:[0-9]{1,5}|\[[0-9A-Fa-f:.]+\]:[0-9]{1,5}", value)):
        return None
    return f'ray must be "auto" or a Ray cluster\'s HOST:PORT (as `ray start --head` prints it), not {value!r}'


def resolve_workers(workers: int | str, concurrency: list[int], cores: int | None = None) -> int:
    """The worker processes of a collection: ``workers`` as given, or for ``"auto"`` what the load needs,
    ``ceil(max(concurrency) / STREAMS_PER_WORKER)``, at most the cores. 1 means the collector's own
    process sends every request, as it always did. An open-loop plan without ``max_in_flight`` (no
    ``concurrency``) has no known load: ``"auto"`` is 1 there, and ``workers = N`` says otherwise."""
    if workers != "auto":
        return int(workers)
    if not concurrency:
        return 1
    needed = -(-max(concurrency) // STREAMS_PER_WORKER)
    return max(1, min(needed, available_cores() if cores is None else cores))


class PlanWorkload(_Strict):
    """The input x concurrency matrix, and how each request is shaped."""

    input_nominal: list[PositiveInt] | None = Field(default=None, min_length=1)
    concurrency: list[PositiveInt] | None = Field(default=None, min_length=1)
    # Open loop (collect/arrivals.py): requests per second instead of a concurrency, exactly one of the two.
    rate: list[PositiveFloat] | None = Field(default=None, min_length=1)
    arrival: Literal["poisson", "constant"] = "poisson"  # (a trace's are "trace": public_workload says so)
    max_in_flight: PositiveInt | None = None
    # Trace replay (collect/trace.py): the trace says the inputs, outputs and arrivals; read by load_plan.
    trace: str | None = Field(default=None, min_length=1)
    trace_time_scale: PositiveFloat = 1.0
    repetitions: PositiveInt = 3
    requests_per_run: PositiveInt = 4
    max_tokens: PositiveInt = 512
    temperature: float = Field(default=0.0, ge=0)
    warmup_requests: NonNegativeInt = 2
    seed: int = 0
    instruction: str = Field(default="Summarise the following notes in one line.", min_length=1, max_length=2000)
    extra_body: dict[str, Any] = Field(default_factory=dict)
    request_timeout_s: PositiveFloat = 600.0
    order: Order = "fixed"
    # How many processes stream the timed requests (collect/workers.py): how the client is run, not
    # what is measured, so it is not in trial.json (each run record lists the processes that sent it).
    workers: Workers = "auto"
    # A Ray cluster whose actors are the workers (collect/ray_workers.py): its HOST:PORT, or "auto" (the one
    # `ray start` left on this machine). Private, like an endpoint: not in trial.json.
    ray: str | None = None

    @field_validator("ray", mode="before")
    @classmethod
    def _ray(cls, value: Any) -> Any:
        problem = ray_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    def slots(self) -> list[int]:
        """The request slots the load may need: the concurrencies, or an open-loop plan's ``max_in_flight``
        (nothing without it: an open loop has no planned concurrency)."""
        if self.concurrency is not None:
            return self.concurrency
        return [self.max_in_flight] if self.max_in_flight else []

    def most_in_flight(self) -> int:
        """The most requests one run may have in flight (the descriptors and lanes it may need)."""
        return max(self.slots()) if self.slots() else self.requests_per_run

    # Shared-prefix workloads (docs/plan-file.md#shared-prefixes): in field order, so each check reads the keys
    # before it and its error names its own line.
    prefix_tokens: PositiveInt | None = None
    prefixes: PositiveInt | None = Field(default=None, le=4096)
    prefix_inputs: list[PositiveInt] | None = Field(default=None, min_length=1)
    prime_prefixes: bool | None = None
    # Multi-turn conversations (docs/plan-file.md#multi-turn-conversations): after the loads, the trace and the
    # prefixes, which their checks read, so each error names its own line.
    turns: int = Field(default=1, ge=1, strict=True)
    session_header: str | None = Field(default=None, max_length=128)

    @field_validator(SHAPE_FIELDS[0], *SHAPE_FIELDS[1:])
    @classmethod
    def _shape_field(cls, value: Any, info: ValidationInfo) -> Any:
        # The keys a workload shape owns (collect/shapes/), each checked by its shape at its own line.
        assert info.field_name is not None
        problem = field_problem(info.field_name, value, info.data)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _shapes(self) -> PlanWorkload:
        # The whole workload, shape by shape (collect/shapes/): the runs are made by the same objects.
        problem = workload_problem(self)
        if problem:
            raise ValueError(problem)
        return self

    @field_validator("workers", mode="before")
    @classmethod
    def _workers(cls, value: Any, info: ValidationInfo) -> Any:
        slots = info.data.get("concurrency") or ([info.data["max_in_flight"]] if info.data.get("max_in_flight") else [])
        problem = workers_problem(value, slots)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _body_fields(self) -> PlanWorkload:
        # ``n`` too: the client times and counts one choice per request.
        reserved = {"model", "messages", "stream", "stream_options", "max_tokens", "temperature", "seed", "n"}
        clash = sorted(reserved & set(self.extra_body))
        if clash:
            raise ValueError(f"extra_body may not set {', '.join(clash)} (the collector sets them)")
        return self


def _default_gates() -> list[GateName]:
    return ["smoke"]


class GatePlan(_Strict):
    """Functional gates run before timed work on every target of every arm."""

    run: list[GateName] = Field(default_factory=_default_gates)
    needle_words: PositiveInt = 2048
    max_tokens: PositiveInt = 256
    timeout_s: PositiveFloat = 120.0


class TelemetryPlan(_Strict):
    """Background sampling of engine occupancy, KV usage, GPU and engine memory."""

    interval_s: PositiveFloat = 1.0
    nvidia_smi: Literal["auto", "off"] = "auto"
    cgroup: str | None = None


class ArmPlan(_Strict):
    """One arm configuration: where it serves and how to start and stop it."""

    label: str | None = Field(default=None, max_length=200)
    base_url: str = Field(pattern=r"^https?://")
    model: str = Field(min_length=1)
    routed_url: str | None = Field(default=None, pattern=r"^(https?://|\{base_url\})")
    routed_model: str | None = None
    start: str | None = None
    stop: str | None = None
    ready_url: str | None = None
    ready_timeout_s: PositiveFloat = 300.0
    speculative: bool = False
    keep_serving: bool = False
    env: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _routed(self) -> ArmPlan:
        if self.routed_model is not None and self.routed_url is None:
            raise ValueError("routed_model is set without routed_url (no routed endpoint to send it to)")
        return self


class Plan(_Strict):
    """A whole trial plan, as the operator wrote it."""

    trial_id: Slug
    title: str = Field(min_length=1, max_length=300)
    engine_kind: EngineKind
    # The metric names a simulated engine speaks (the simulator's --dialect); a real kind speaks its own.
    dialect: SimulatedDialect | None = None
    # The SLOs goodput counts against (analyze/goodput.py); public: verify recounts it. Before the rule, so
    # the rule's check reads it and its error is located at the [decision_rule] table.
    slo: Slo | None = None
    decision_rule: PlanDecisionRule
    workload: PlanWorkload
    # ``arms`` before ``sequence``: the sequence's check reads the arms, and as a field check
    # its error is located at the ``sequence =`` line.
    arms: dict[Slug, ArmPlan] = Field(min_length=2)
    sequence: list[Slug] = Field(min_length=3)
    gates: GatePlan = Field(default_factory=GatePlan)
    telemetry: TelemetryPlan = Field(default_factory=TelemetryPlan)
    client: ClientBounds = Field(default_factory=ClientBounds)
    # The trace [workload] trace names, read and checked by load_plan (private: never in trial.json).
    _trace: Trace | None = PrivateAttr(default=None)

    @property
    def trace(self) -> Trace | None:
        """The replayed trace, or None for a plan without one."""
        return self._trace

    def with_trace(self, trace: Trace) -> Plan:
        """This plan replaying ``trace``: its workload takes the trace's median input, its rate (at
        ``trace_time_scale``), ``arrival`` ``trace`` and one run of every line."""
        wl = self.workload
        wl.input_nominal, wl.rate = [trace.input_nominal()], [trace.rate(wl.trace_time_scale)]
        wl.requests_per_run = len(trace.requests)
        self._trace = trace
        return self

    @model_validator(mode="before")
    @classmethod
    def _rule_declared(cls, data: Any) -> Any:
        # No default rule: the threshold is the operator's judgment, made before the trial runs.
        known = {name for name, info in cls.model_fields.items()} | {info.alias for info in cls.model_fields.values()}
        if isinstance(data, dict) and "decision_rule" not in data and set(data) <= known:
            # (A table no plan has, [decision_rules] say, is named at its line by the unknown-field check.)
            raise ValueError(
                "no [decision_rule] table: a plan declares the rule its trial is judged by, and there is no default; "
                "the reference decision's is [decision_rule] with min_improvement = 0.10 (a median end-to-end "
                "latency at least 10% lower against both controls); see docs/plan-file.md"
            )
        return data

    @field_validator("decision_rule")
    @classmethod
    def _goodput_slo(cls, rule: PlanDecisionRule, info: ValidationInfo) -> PlanDecisionRule:
        if rule.metric == "goodput" and "slo" in info.data and info.data["slo"] is None:
            raise ValueError("metric is goodput, but the plan declares no [slo] table to count it against (ttft_ms, tpot_ms, e2e_ms)")
        return rule

    @field_validator("dialect")
    @classmethod
    def _dialect_simulated(cls, dialect: str | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("engine_kind")
        if dialect is not None and kind is not None and kind != "simulated":
            raise ValueError(f'dialect is for engine_kind "simulated" (the simulator speaks any); engine_kind "{kind}" reads its own engine\'s names')
        return dialect

    def metrics_dialect(self) -> Dialect:
        """The names the collector reads this trial's ``/metrics`` with (``docs/engines.md``)."""
        return dialect_for(self.engine_kind, self.dialect)

    @field_validator("sequence")
    @classmethod
    def _design(cls, sequence: list[str], info: ValidationInfo) -> list[str]:
        control = sequence[0]
        if sequence[-1] != control:
            raise ValueError("sequence must end with the arm it starts with (the control: A/B/A, A/B/A/B/A, A/B/B/A, ...)")
        others = sorted(set(sequence) - {control})
        if not others:
            raise ValueError("sequence names no candidate arm (it must differ from the control arm)")
        if len(others) > 1:
            raise ValueError(
                f"sequence alternates two arms, the control {control!r} and one candidate; it names {len(others)} others ({', '.join(others)})"
            )
        if sequence[1] == control:
            raise ValueError(
                "sequence must run the candidate second (A/B/...): a second control block before it "
                "would be measured as a restoration that never followed a candidate"
            )
        arms = info.data.get("arms")
        missing = [name for name in (control, others[0]) if arms is not None and name not in arms]
        if missing:
            raise ValueError(f"sequence names arm {missing[0]!r}, which has no [arms.{missing[0]}] table")
        return sequence

    def public_workload(self) -> Workload:
        """The ``trial.json`` workload: the plan's, less the instruction and the timeout (and a trace's file:
        its replay is an open loop at the trace's rate, ``arrival`` ``trace``)."""
        wl = self.workload
        assert wl.input_nominal is not None, "a trace plan is read by load_plan, which sets its inputs"
        return Workload(
            input_nominal=wl.input_nominal,
            concurrency=wl.concurrency,
            rate=wl.rate,
            arrival=None if wl.rate is None else "trace" if self._trace is not None else wl.arrival,
            max_in_flight=wl.max_in_flight,
            repetitions=wl.repetitions,
            requests_per_run=wl.requests_per_run,
            max_tokens=wl.max_tokens,
            temperature=wl.temperature,
            warmup_requests=wl.warmup_requests,
            seed=wl.seed,
            extra_body=wl.extra_body,
            # Absent means fixed: a trial in plan order keeps the trial.json it always had.
            order=None if wl.order == "fixed" else wl.order,
            prefix_tokens=wl.prefix_tokens,
            prefixes=wl.prefixes,
            prefix_inputs=wl.prefix_inputs,
            # Priming is the default of a shared-prefix workload (the steady state of a hot system prompt).
            prime_prefixes=None if wl.prefix_tokens is None else wl.prime_prefixes is not False,
            # Absent for one turn: a single-turn trial keeps the trial.json it always had.
            turns=None if wl.turns == 1 else wl.turns,
            session_header=wl.session_header,
        )

    def trial(self) -> Trial:
        """The ``trial.json`` model of this plan: public fields only."""
        control = self.sequence[0]
        roles: list[Role] = ["control" if name == control else "candidate" for name in self.sequence]
        aba = design_name(roles) == "A/B/A"
        arms: list[ArmRef] = []
        for seq, (name, role) in enumerate(zip(self.sequence, roles), start=1):
            phase = phase_of(seq - 1, role)
            block = sum(a.phase == phase for a in arms) + 1
            arms.append(
                ArmRef(
                    seq=seq,
                    arm=name,
                    role=role,
                    phase=phase,
                    journal=f"journals/{seq:02d}-{name}-{phase}.jsonl",
                    label=self.arms[name].label,
                    block=None if aba else block,
                )
            )
        return Trial(
            schema="evidence-kit/trial/v1",
            trial_id=self.trial_id,
            title=self.title,
            engine_kind=self.engine_kind,
            dialect=self.dialect,
            decision_rule=DecisionRule.model_validate(self.decision_rule.model_dump()),
            workload=self.public_workload(),
            arms=arms,
            **_extras(gates=list(self.gates.run)),
            client=ClientBounds.model_validate(self.client.model_dump()),
            slo=self.slo,
        )


def _extras(**fields: Any) -> dict[str, Any]:
    """Fields a contract record does not declare, to pass through its ``extra="allow"``."""
    return fields


def _line_in_table(text: str, loc: tuple[Any, ...]) -> int | None:
    """Line of ``key`` inside a dotted table header such as ``[arms.original]``, or inside the n-th
    table of an array of tables such as ``[[decision_rule.guardrails]]``."""
    index = next((i for i, k in enumerate(loc) if isinstance(k, int)), None)
    if index:
        name = ".".join(str(k) for k in loc[:index])
        headers = list(re.finditer(rf"(?m)^[ \t]*\[\[[ \t]*{re.escape(name)}[ \t]*\]\]", text))
        if loc[index] < len(headers):
            header = headers[loc[index]]
            found = header.start()
            if index + 1 < len(loc) and isinstance(loc[index + 1], str):
                following = re.compile(r"(?m)^[ \t]*\[").search(text, header.end())
                key = re.compile(rf"(?m)^[ \t]*\"?{re.escape(loc[index + 1])}\"?[ \t]*=").search(
                    text, header.end(), following.start() if following else len(text)
                )
                found = key.start() if key else found
            return text.count("\n", 0, found) + 1
    keys = [str(k) for k in loc if isinstance(k, str)]
    for split in range(len(keys), 0, -1):
        header = re.search(rf"(?m)^[ \t]*\[[ \t]*{re.escape('.'.join(keys[:split]))}[ \t]*\]", text)
        if header is None:
            continue
        if split == len(keys):
            return text.count("\n", 0, header.start()) + 1
        key = re.compile(rf"(?m)^[ \t]*\"?{re.escape(keys[split])}\"?[ \t]*=").search(text, header.end())
        found = key.start() if key else header.start()
        return text.count("\n", 0, found) + 1
    return None


def _plan_line(text: str, loc: Sequence[Any]) -> int | None:
    """The line of a plan's field: the generic locator knows ``[table]`` and ``key =``; plans also use dotted
    headers (``[arms.original]``) and arrays of tables (``[[decision_rule.guardrails]]``, where the generic
    answer would be the ``[decision_rule]`` line)."""
    line = line_of_key(text, loc, toml=True)
    if line is None or any(isinstance(k, int) for k in loc):
        return _line_in_table(text, tuple(loc)) or line
    return line


def load_plan(path: str | Path) -> Plan:
    """Read and validate a plan file; every problem is named at once, each with the file and its line (exit 2)."""
    path = Path(path)
    plan = read_toml_model(path, Plan, locate=_plan_line)
    if plan.workload.trace is not None:
        # Relative to the plan's folder, as a reader of the plan would take it.
        plan.with_trace(read_trace(path.parent / plan.workload.trace))
    return plan
