"""Findings: the rows and facts a page must call out by name, one model per ``kind``.

A finding is ``{"kind": ..., "group": ..., "values": {...}}`` in the analysis document
(``analysis.json``); ``kind`` says which rule found it and decides what ``group`` and
``values`` hold. :data:`Finding` is the union of every kind, discriminated on ``kind``;
``analyze`` produces them (``analyze/findings.py``) and every page and report words them.
New kinds are added here, as one more member of the union.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

from .phase import Phase

__all__ = [
    "ArmCheck",
    "ArmIncomplete",
    "ArmGate",
    "CheckFailedFinding",
    "CheckWarningFinding",
    "ClientExceedance",
    "ClientSaturatedFinding",
    "ClientSaturation",
    "ControlDriftFinding",
    "Count",
    "Drift",
    "FailuresFinding",
    "FewRepetitions",
    "FewRepetitionsFinding",
    "Imported",
    "ImportedFinding",
    "IncompleteFinding",
    "Finding",
    "GateFailedFinding",
    "GuardrailBreach",
    "GuardrailBreachedFinding",
    "NoiseFinding",
    "WithinNoise",
    "Improvements",
    "RegressionFinding",
    "Slots",
    "SlotsNotRestoredFinding",
    "SlowerThanBoth",
    "SplitVerdictFinding",
    "TelemetryFields",
    "TelemetryMismatchFinding",
    "ArmTimingGap",
    "ArmTimingUnchecked",
    "TimingGapFinding",
    "TimingUncheckedFinding",
    "Unreconcilable",
    "UnreconcilableFinding",
    "UnreconciledFinding",
    "WinFinding",
]


class _Part(BaseModel):
    # Part of the analysis document, which ``analyze`` alone writes: an unknown field is a bug.
    model_config = ConfigDict(extra="forbid")


class Improvements(_Part):
    improvement_vs_before_pct: float | None = Field(description="improvement_pct against the original before")
    improvement_vs_restored_pct: float | None = Field(description="improvement_pct against the original restored")


class SlowerThanBoth(_Part):
    change_vs_before_pct: float = Field(description="change_pct against the original before (positive: slower)")
    change_vs_restored_pct: float = Field(description="change_pct against the original restored (positive: slower)")


class WithinNoise(_Part):
    improvement_vs_before_pct: float | None = Field(description="improvement_pct against the original before")
    improvement_vs_restored_pct: float | None = Field(description="improvement_pct against the original restored")
    controls: str = Field(description="the controls whose run-level interval includes no change, comma-separated")
    undrawn: str = Field(
        default="",
        description="the controls against which no run-level interval could be drawn (fewer than two runs with values in an arm), comma-separated",
    )


class GuardrailBreach(_Part):
    metric: str = Field(description="the guarded metric")
    statistic: str = Field(description="median, p90 or p99")
    kind: Literal["max-regression", "max-change"]
    bound_pct: float = Field(description="the declared bound, in percent")
    change_vs_before_pct: float = Field(description="the candidate's change of the statistic against the original before")
    change_vs_restored_pct: float = Field(description="the candidate's change of the statistic against the original restored")
    within_noise: bool = Field(description="an interval of the guarded statistic includes no change")


class Drift(_Part):
    drift_pct: float | None = Field(description="control_drift_pct of the group")


class Count(_Part):
    count: NonNegativeInt = Field(description="how many")


class Unreconcilable(Count):
    without_counters: NonNegativeInt = Field(
        description="of them, runs whose record holds no counters at all; the others' counters hold none of the request and token counters"
    )


class _InArm(_Part):
    """Values about one arm: its phase, and its block where the phase has several."""

    phase: Phase
    block: int | None = Field(
        default=None,
        description="the arm's place among the arms of its phase where the phase has several (the second candidate block is 2); null otherwise",
    )


class ArmGate(_InArm):
    gate: str = Field(description="the failed gate as name@target")


class ArmCheck(_InArm):
    check: str = Field(description="the check's name")


class ArmIncomplete(_InArm):
    completed: NonNegativeInt = Field(description="the arm's timed requests that completed")
    planned: NonNegativeInt = Field(description="the timed requests the workload plans per arm")
    groups: list[str] = Field(description="the labels of the groups in which the arm completed no timed request, in the analysis's order")
    groups_total: NonNegativeInt = Field(description="the trial's groups")


class ClientExceedance(_Part):
    bound: Literal["loop-lag", "loop-lag-p50", "send-wait", "loop-cpu", "arrival-rate"] = Field(
        description="which declared client bound: loop-lag (max_loop_lag_s), loop-lag-p50 (max_loop_lag_p50_s), "
        "send-wait (max_send_wait_s), loop-cpu (max_cpu_share), arrival-rate (max_rate_shortfall, open loop)"
    )
    value: float = Field(description="what the run measured: loop_lag_max_s, loop_lag_p50_s, send_wait_max_s, loop_cpu_share or rate_shortfall")
    limit: float = Field(description="the declared bound")
    over_pct: float | None = Field(
        description="(value / limit - 1) x 100: how far over the bound; null when that overflows (a bound far below the value)"
    )


class ClientSaturation(_InArm):
    run: str = Field(description="the run's id")
    exceeded: list[ClientExceedance] = Field(description="each bound the run's client exceeded")


class Slots(_Part):
    original: int = Field(description="KV token slots of the original before")
    restored: int = Field(description="KV token slots of the original restored")


class FewRepetitions(_Part):
    confidence: Literal["significant", "bound"] = Field(description="the rule's confidence, which reads the intervals")
    runs: NonNegativeInt = Field(description="the fewest runs with values that any arm holds in any group")
    advised: NonNegativeInt = Field(
        description="the runs per arm from which the default interval measured at least 93% coverage in every scenario and shape (docs/benchmarks.md)"
    )


class TelemetryFields(_InArm):
    fields: str = Field(description="the summary fields that disagree, comma-separated")


class ArmTimingGap(_InArm):
    metric: Literal["ttft_s", "e2e_s"] = Field(description="the client time compared: ttft_s or e2e_s")
    runs: NonNegativeInt = Field(description="the arm's runs whose gap exceeds the bound")
    largest_gap_ms: float = Field(description="the arm's compared gap of the largest size (client mean - engine mean, milliseconds), with its sign")
    bound_ms: float = Field(description="the rule's max_timing_gap_ms")


class ArmTimingUnchecked(_InArm):
    metric: Literal["ttft_s", "e2e_s"] = Field(description="the client time not compared: ttft_s or e2e_s")
    runs: NonNegativeInt = Field(description="the arm's runs where the bound could not be checked on that time: not_comparable + not_reconcilable")
    runs_total: NonNegativeInt = Field(description="the arm's runs")
    not_comparable: NonNegativeInt = Field(description="of them, runs with the histogram whose counts or counters forbid a comparison")
    not_reconcilable: NonNegativeInt = Field(description="of them, runs without the histogram around them")
    bound_ms: float = Field(description="the rule's max_timing_gap_ms")


class _InGroup(_Part):
    group: str = Field(description="the group's label, e.g. '~6K/C4'")


class _InTrial(_Part):
    group: None = Field(default=None, description="null: the finding concerns the trial, not one group")


class WinFinding(_InGroup):
    """The group's verdict is win: it clears the rule's threshold against both controls at the rule's confidence."""

    kind: Literal["win"]
    values: Improvements


class NoiseFinding(_InGroup):
    """A point-estimate win whose interval against a control includes no change."""

    kind: Literal["win-within-noise"]
    values: WithinNoise


class GuardrailBreachedFinding(_InGroup):
    """A declared guardrail is exceeded against both controls: the candidate cannot be promoted."""

    kind: Literal["guardrail-breached"]
    values: GuardrailBreach


class SplitVerdictFinding(_InGroup):
    """The group clears the threshold against one control but not the other."""

    kind: Literal["split-verdict"]
    values: Improvements


class RegressionFinding(_InGroup):
    """The group's verdict is regression: slower than both controls by at least half the threshold."""

    kind: Literal["regression"]
    values: SlowerThanBoth


class ControlDriftFinding(_InGroup):
    """The two controls disagree by at least the threshold: the row cannot be decided cleanly."""

    kind: Literal["control-drift"]
    values: Drift


class FailuresFinding(_InTrial):
    """Timed requests failed."""

    kind: Literal["failures"]
    values: Count


class UnreconciledFinding(_InTrial):
    """Runs whose engine counters did not reconcile with the client's sums."""

    kind: Literal["unreconciled"]
    values: Count


class UnreconcilableFinding(_InTrial):
    """Runs with no counters to reconcile (no counters recorded around them, or none of the request and token
    counters among them)."""

    kind: Literal["not-reconcilable"]
    values: Unreconcilable


class TimingGapFinding(_InTrial):
    """An arm's runs whose mean client time differs from the engine's own by more than the declared bound."""

    kind: Literal["timing-gap"]
    values: ArmTimingGap


class TimingUncheckedFinding(_InTrial):
    """The rule declares a timing bound, and an arm has runs where it could not be checked on a time (not
    comparable or not reconcilable): the bound was not shown to hold, and the trial cannot promote."""

    kind: Literal["timing-unchecked"]
    values: ArmTimingUnchecked


class IncompleteFinding(_InTrial):
    """An arm completed no timed request in a group (or in any): the trial is incomplete, those groups have no
    comparison, and the candidate cannot be promoted."""

    kind: Literal["incomplete"]
    values: ArmIncomplete


class GateFailedFinding(_InTrial):
    kind: Literal["gate-failed"]
    values: ArmGate


class CheckFailedFinding(_InTrial):
    kind: Literal["check-failed"]
    values: ArmCheck


class CheckWarningFinding(_InTrial):
    """A check at level warning did not pass: shown, not failing the arm."""

    kind: Literal["check-warning"]
    values: ArmCheck


class ClientSaturatedFinding(_InTrial):
    """The client exceeded a declared bound of its own health in a run: its timings may be inflated, and
    the trial cannot promote."""

    kind: Literal["client-saturated"]
    values: ClientSaturation


class SlotsNotRestoredFinding(_InTrial):
    """The engine-reported KV token slots did not return to the original value."""

    kind: Literal["slots-not-restored"]
    values: Slots


class FewRepetitionsFinding(_InTrial):
    """The rule reads the intervals, and an arm holds fewer runs than the intervals are measured to need."""

    kind: Literal["few-repetitions"]
    values: FewRepetitions


class Imported(_Part):
    tool: str = Field(description="the other client whose result files the trial was imported from")
    versions: list[str] = Field(description="the tool versions its files record, each once, sorted; empty when they record none")
    not_recorded: list[str] = Field(description="what the tool does not record, so the trial lacks it (the journal header's imported.not_recorded)")


class ImportedFinding(_InTrial):
    """The trial was imported from another client's result files: what that client did not record is absent."""

    kind: Literal["imported"]
    values: Imported


class TelemetryMismatchFinding(_InTrial):
    """A journal footer records a telemetry summary its own samples do not give."""

    kind: Literal["telemetry-mismatch"]
    values: TelemetryFields


Finding = Annotated[
    WinFinding
    | NoiseFinding
    | GuardrailBreachedFinding
    | SplitVerdictFinding
    | RegressionFinding
    | ControlDriftFinding
    | FailuresFinding
    | UnreconciledFinding
    | UnreconcilableFinding
    | IncompleteFinding
    | GateFailedFinding
    | CheckFailedFinding
    | CheckWarningFinding
    | TimingGapFinding
    | TimingUncheckedFinding
    | SlotsNotRestoredFinding
    | TelemetryMismatchFinding
    | FewRepetitionsFinding
    | ClientSaturatedFinding
    | ImportedFinding,
    Field(discriminator="kind"),
]
