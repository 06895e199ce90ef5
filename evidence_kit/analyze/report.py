"""The analysis document (``evidence-kit/analysis/v2``): every figure a page may show.

These models are the stable, documented JSON that ``evidence-kit analyze --json``
prints, that the site builder renders, and that ``verify`` recomputes and compares.
Percentages are stored as percent (``9.24`` means 9.24 %), unrounded; rounding is
left to whoever displays them.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..canonical import canonical_json
from ..model.findings import ClientExceedance, Finding
from ..model.journal import ImportedFrom
from ..model.phase import Control, Phase
from ..model.telemetry import TelemetrySummary
from ..model.trial import ClientBounds

__all__ = [
    "ANALYSIS_SCHEMA",
    "Analysis",
    "ArmSummary",
    "ArmTiming",
    "BlockComparison",
    "Comparison",
    "DecisionSummary",
    "DesignBlock",
    "DesignResult",
    "Failure",
    "Finding",
    "CacheHits",
    "GroupResult",
    "GuardrailResult",
    "GuardrailRule",
    "Interval",
    "Pooled",
    "RuleSummary",
    "RunClient",
    "RunStats",
    "SlotChange",
    "TIMING_METRICS",
    "TimingGap",
    "TrialAnalysis",
    "TurnResult",
    "Verdict",
    "VERDICTS",
    "analysis_json",
]

ANALYSIS_SCHEMA: Final = "evidence-kit/analysis/v2"
VerdictName = Literal["win", "likely", "no-win", "regression", "inconclusive"]
# Statistics v3's verdicts (its documents count these four); v4 adds ``likely``: a point estimate past the
# threshold whose interval is not (never a win).
VERDICTS_V3: tuple[VerdictName, ...] = ("win", "no-win", "regression", "inconclusive")
VERDICTS: tuple[VerdictName, ...] = ("win", "likely", "no-win", "regression", "inconclusive")
StatisticName = Literal["median", "p90", "p99", "share"]
TimingMetric = Literal["ttft_s", "e2e_s"]
TIMING_METRICS: tuple[TimingMetric, ...] = ("ttft_s", "e2e_s")
# Why a run's client time was, or was not, set against the engine's own: compared; not reconcilable (no
# counters around the run, or none of the metric's histogram); not comparable (the rest).
TimingStatus = Literal["compared", "no-counters", "no-histogram", "engine-restarted", "counter-reset", "count-mismatch", "no-requests", "not-finite"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class _Versioned(_Doc):
    """A record with fields only statistics v4 fills: left out while null, so a v3 document is the one it always was."""

    _v4_only: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _v3_unchanged(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        for name in self._v4_only:
            if out.get(name, ...) is None:
                del out[name]
        return out


class Failure(_Doc):
    """A timed request that failed, and why."""

    seq: int = Field(description="the arm's seq")
    phase: Phase
    run: str
    index: int
    error: str


class Pooled(_Doc):
    """Statistics of every ok timed request of one group in one arm, pooled over its runs."""

    median: float | None = Field(description="ordinary median")
    p90: float | None = Field(description="nearest-rank 90th percentile")
    p99: float | None = Field(description="nearest-rank 99th percentile")
    n: int


class Comparison(_Doc):
    """Candidate against one control, for one metric and group."""

    control: Control
    change_pct: float | None = Field(description="(candidate / control - 1) x 100; negative is faster")
    improvement_pct: float | None = Field(description="(control - candidate) / control x 100 = -change_pct")
    clears: bool | None = Field(description="improvement_pct >= the rule's min_improvement; null except for the decision metric")


class Interval(_Versioned):
    """Seeded bootstrap interval of statistic(candidate) / statistic(control) for one metric (statistics v4:
    the launch-level t interval, ``launch-t``)."""

    _v4_only = ("df", "p_value")
    control: Control | Literal["corrected"]
    statistic: StatisticName
    method: Literal["run-t", "run", "request", "launch-t"] = Field(
        description="run-t (the default): the studentised run-level interval, a bootstrap-t Fieller interval "
        "studentised by the spread of the run means; run: the adjusted two-stage percentile bootstrap "
        "(runs, then requests, with run effects and residuals rescaled to their estimated variance "
        "components); request: requests alone, as if independent; launch-t (statistics v4): the launch-level "
        "Fieller t interval, the blocks' disagreement carried in with its degrees of freedom"
    )
    ratio: float | None
    low: float | None
    high: float | None
    resolvable: bool = Field(description="the interval excludes 1: the difference is resolvable at this sample size")
    df: int | None = Field(default=None, description="statistics v4: the t quantile's degrees of freedom (Satterthwaite's, rounded down)")
    p_value: float | None = Field(
        default=None,
        description="statistics v4, the decision metric: one-sided p-value of an improvement smaller than the threshold",
    )


class GuardrailRule(_Doc):
    """A guardrail as the rule declares it."""

    metric: str
    statistic: StatisticName
    kind: Literal["max-regression", "max-change"]
    bound_pct: float = Field(description="the bound in percent: at most this much higher (max-regression) or different either way (max-change)")


class RuleSummary(_Versioned):
    """The trial's predeclared decision rule, as the analysis applied it."""

    _v4_only = ("statistics", "family_alpha_pct", "family_groups", "decision_trials")

    metric: str
    statistic: str
    min_improvement_pct: float
    threshold_low_ratio: float = Field(
        description="1 - min_improvement: a candidate / control ratio at or below it clears the threshold (drawn on the interval charts)"
    )
    threshold_high_ratio: float = Field(description="1 + min_improvement: the same change the slower way (drawn on the interval charts)")
    against: str
    promote_if: str
    confidence: Literal["point", "significant", "bound"]
    guardrails: list[GuardrailRule]
    max_timing_gap_ms: float | None = Field(
        description="the most a run's mean client time may differ from the engine's own, either way, in ms; null: shown, not checked"
    )
    statistics: int | None = Field(default=None, description="the statistics version the rule declares (4); left out under v3")
    family_alpha_pct: float | None = Field(
        default=None,
        description="statistics v4: the family-wise rate of a false promotion the rule keeps, in percent, per decision",
    )
    family_groups: int | None = Field(default=None, description="statistics v4: the groups Holm's step-down adjusts for in this trial")
    decision_trials: int | None = Field(default=None, description="statistics v4: the trials of the decision that share its error budget")


class GuardrailResult(_Doc):
    """One guardrail checked at one group: the candidate against each control, on point estimates."""

    rule: GuardrailRule
    change_vs_before_pct: float | None
    change_vs_restored_pct: float | None
    intervals: list[Interval] = Field(description="run-level intervals of the guarded statistic against each control")
    checked: bool = Field(
        description="the guarded statistic was compared against both controls (it exists in "
        "every arm, no control's is zero, and the candidate's ok requests carry the "
        "metric at least as often as each control's); an unchecked guardrail is not held"
    )
    breached: bool = Field(description="the change exceeds the bound against both controls")
    within_noise: bool = Field(description="breached, yet an interval includes no change")


class Verdict(_Versioned):
    """The predeclared rule applied to one group."""

    _v4_only = ("p_value", "tested_at")
    verdict: VerdictName
    reason: Literal["clears-both", "slower-than-both", "controls-disagree", "below-threshold", "unresolved", "not-resolved", "not-admitted"]
    win: bool = Field(description="verdict is win: the rule's threshold cleared at its declared confidence")
    point_win: bool = Field(description="the point estimates clear the threshold against both controls")
    within_noise: bool = Field(description="a point-estimate win whose interval against a control includes no change")
    clears_before: bool
    clears_restored: bool
    split: bool = Field(description="clears the threshold against one control but not the other")
    control_drift_pct: float | None = Field(description="(restored / before - 1) x 100 of the decision metric")
    drift_flagged: bool = Field(description="|control_drift_pct| >= the rule's threshold")
    guardrails_held: bool = Field(description="every guardrail checked and none breached at this group")
    p_value: float | None = Field(
        default=None,
        description="statistics v4: the group's p-value of an improvement below the threshold (the larger over the controls it is judged against)",
    )
    tested_at: float | None = Field(
        default=None, description="statistics v4: the level Holm's step-down tested the group at (a win needs p_value at most this)"
    )


class DesignBlock(_Doc):
    """One arm of the design (a block) in one group: the pooled median of the decision metric."""

    seq: int
    phase: Phase
    block: int = Field(description="the arm's place among the arms of its phase (1, 2, ...)")
    median: float | None
    n: int


class BlockComparison(_Doc):
    """The pooled candidate against one control block, for the decision metric."""

    seq: int = Field(description="the control block's arm")
    change_pct: float | None = Field(description="(candidate / control block - 1) x 100; negative is faster")


class DesignResult(_Doc):
    """One group's decision metric block by block: the control blocks' linear drift, and the candidate
    against the drift-corrected control and against each control block."""

    blocks: list[DesignBlock] = Field(description="every arm, in run order")
    drift_pct_per_arm: float | None = Field(
        description="least-squares slope of the control blocks' medians over seq, in percent of the first "
        "control block's median per arm position; positive is the control getting slower"
    )
    corrected_at_seq: float = Field(description="the mean seq of the candidate blocks")
    corrected_control: float | None = Field(description="the fitted control line at corrected_at_seq")
    change_vs_corrected_pct: float | None = Field(description="(candidate / corrected_control - 1) x 100")
    vs_controls: list[BlockComparison] = Field(description="the candidate against each control block, in run order")


class GroupLoad(_Doc):
    """One group's goodput and achieved arrival rate in one pooled entry (``analyze/goodput.py``)."""

    requests: int = Field(description="timed requests sent (failed ones included)")
    good: int | None = Field(description="of them, those that succeeded and met every declared SLO; null without SLOs")
    share: float | None = Field(description="good / requests: the goodput share (the decision metric goodput)")
    good_rate_per_s: float | None = Field(description="good requests per second of the runs' spans (first send to last end, summed over the runs)")
    achieved_rate_per_s: float | None = Field(
        description="open loop: requests started per second, the runs' sends "
        "after their first over the spans of their sends; null for a "
        "closed-loop group"
    )


class CacheHits(_Doc):
    """Prompt tokens the engine reported serving from its prefix cache, over one pooled entry of a group."""

    requests: int = Field(description="ok timed requests")
    reporting: int = Field(description="of them, those whose usage reported cached_tokens")
    cached_tokens: int = Field(description="their cached prompt tokens, summed")
    prompt_tokens: int = Field(description="their prompt tokens, summed")
    hit_rate_pct: float | None = Field(description="cached_tokens / prompt_tokens x 100; null when none reported")


class TurnResult(_Doc):
    """One turn of a multi-turn group's conversations: its own pooled times, against each control."""

    turn: int = Field(description="the turn (1 ... turns); turn k+1 re-sends turn k's history and answer")
    input_tokens_min: int | None = Field(description="the fewest prompt tokens of this turn's ok timed requests, every arm")
    input_tokens_max: int | None = Field(description="the most, every arm")
    pooled: dict[str, dict[str, Pooled]] = Field(description="ttft_s, e2e_s -> phase -> pooled statistics of this turn's ok timed requests")
    comparisons: dict[str, list[Comparison]] = Field(
        description="ttft_s, e2e_s -> the candidate's pooled median against each control's (clears null: the rule judges the group's turns pooled)"
    )
    cache_hits: dict[str, CacheHits] | None = Field(
        description="phase -> the prefix-cache hits this turn's requests reported (a later turn's history); null when none reported"
    )


class GroupResult(_Doc):
    """One workload group: pooled medians per arm, comparisons, verdict."""

    input_nominal: int
    concurrency: int | None = Field(description="the group's concurrency; null in an open-loop group")
    rate: float | None = Field(
        default=None, description="open loop: the group's planned arrival rate, requests per second; null for a closed-loop group"
    )
    label: str = Field(description="e.g. '~6K/C4', or '~6K/R2.0' at 2 requests per second, from the actual prompt tokens")
    input_label: str = Field(description="e.g. '~6K'")
    input_tokens_min: int | None
    input_tokens_max: int | None
    pooled: dict[str, dict[str, Pooled]] = Field(description="metric -> phase -> pooled median")
    comparisons: dict[str, list[Comparison]] = Field(description="metric -> candidate vs each control")
    intervals: list[Interval] = Field(description="run-level intervals of the decision metric's median, per control")
    request_intervals: list[Interval] = Field(description="request-level intervals of the same, for comparison")
    tail_intervals: list[Interval] = Field(description="run-level intervals of the decision metric's p90 and p99")
    detectable_pct: float | None = Field(
        description="the smallest change this group's data resolve, in percent: statistics v3, of the median with 80% power at "
        "95% confidence; v4, the smallest observed improvement the rule would call a win (the analysis' definitions)"
    )
    guardrails: list[GuardrailResult]
    verdict: Verdict
    design: DesignResult = Field(description="the design analysis of the decision metric")
    load: dict[str, GroupLoad] | None = Field(
        default=None, description="phase -> goodput (with declared SLOs) and achieved arrival rate (open loop); null when the trial has neither"
    )
    shared_prefix: bool = Field(
        default=False,
        description="the group's prompts open with the workload's shared prefixes (trial.json's prefix_tokens, prefixes, prefix_inputs)",
    )
    cache_hits: dict[str, CacheHits] | None = Field(
        default=None, description="phase -> the prefix-cache hits the engine reported; null when no request of the group reported cached_tokens"
    )
    turns: list[TurnResult] | None = Field(
        default=None, description="multi-turn workloads: each turn's figures (the rule judges every turn pooled); left out of a single-turn group"
    )

    @model_serializer(mode="wrap")
    def _single_turn_unchanged(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A single-turn group's document is the one it always was: no "turns": null in every analysis.json.
        out: dict[str, Any] = handler(self)
        if out.get("turns", ...) is None:
            del out["turns"]
        return out


class TimingGap(_Doc):
    """One run's mean client time of one metric against the engine's own mean over the same requests:
    the deltas of the engine's histogram (sum and count) between the scrapes around the run."""

    metric: TimingMetric
    status: TimingStatus = Field(
        description="compared; no-counters or no-histogram (not reconcilable); "
        "engine-restarted, counter-reset, count-mismatch, no-requests or "
        "not-finite (the gap in ms is beyond a float) (not comparable)"
    )
    engine_count: float | None = Field(description="the histogram's count delta over the run; null without it")
    engine_mean_s: float | None = Field(description="the histogram's sum delta / its count delta; null unless compared")
    client_count: int = Field(description="the run's ok requests carrying the metric")
    client_mean_s: float | None = Field(description="their mean; null without one")
    gap_ms: float | None = Field(description="(client_mean_s - engine_mean_s) x 1000, milliseconds; null unless compared")
    beyond_bound: bool = Field(description="|gap_ms| exceeds the rule's max_timing_gap_ms")


class ArmTiming(_Doc):
    """One metric's timing gaps over an arm's runs."""

    metric: TimingMetric
    runs_compared: int
    runs_not_comparable: int = Field(description="runs with the histogram whose counts or counters forbid a comparison")
    runs_not_reconcilable: int = Field(description="runs without the histogram's values around them")
    runs_without_counters: int = Field(description="of runs_not_reconcilable, those whose record holds no counters at all (no-counters)")
    requests_compared: int = Field(description="client requests in the compared runs")
    mean_gap_ms: float | None = Field(
        description="the compared runs' gaps weighted by their requests: the sum of "
        "gap_ms x client_count over requests_compared; null when none was "
        "compared (or, at sizes near the largest float, where it overflows)"
    )
    largest_gap_ms: float | None = Field(description="the compared runs' gap_ms of the largest size, with its sign; of a +g and a -g, the positive")
    runs_beyond_bound: int


class RunClient(_Doc):
    """The client's own health over one run, derived from the run record and its requests, and judged."""

    wall_s: float = Field(description="the run's wall time on the collector's clock")
    processes: int = Field(description="the client's processes the run record lists")
    cpu_s: float | None = Field(description="CPU seconds of every process, summed; null where the sum overflows")
    loop_cpu_share: float | None = Field(
        description="the busiest event loop's CPU seconds / wall_s: the share of one "
        "core its thread used; null when wall_s is 0 or the ratio overflows"
    )
    loop_lag_samples: int = Field(description="lag samples, summed over the processes")
    loop_lag_p50_s: float | None = Field(description="the highest of the processes' median loop lags")
    loop_lag_max_s: float | None = Field(description="the highest loop lag of any process; null without a sample")
    send_wait_p50_s: float | None = Field(description="nearest-rank median send_wait_s of the run's timed requests")
    send_wait_max_s: float | None = Field(description="the longest send_wait_s of the run's timed requests")
    achieved_concurrency: float | None = Field(
        description="time-averaged requests on the wire: the sum of send -> end of the requests with both, over "
        "the span from the first send to the last end (the planned concurrency is the run's)"
    )
    achieved_rate_per_s: float | None = Field(
        default=None,
        description="open loop: requests started per second, (n - 1) / (last t_send_s - first "
        "t_send_s) over the run's timed requests; null for a closed-loop run",
    )
    scheduled_rate_per_s: float | None = Field(default=None, description="open loop: the same of the schedule, (n - 1) / (last scheduled_s - first)")
    rate_shortfall: float | None = Field(
        default=None, description="open loop: 1 - achieved / scheduled rate (0 or below: the client kept up), judged against max_rate_shortfall"
    )
    exceeded: list[ClientExceedance] = Field(description="each declared client bound the run exceeded")
    unjudged: list[Literal["loop-lag", "loop-lag-p50", "send-wait", "loop-cpu", "arrival-rate"]] = Field(
        description="each declared client bound the run's figures could not be judged against (not derivable): "
        "it blocks promotion, as a saturated run does"
    )
    saturated: bool = Field(description="a bound was exceeded: the client may have been the bottleneck")


class RunStats(_Doc):
    """Nearest-rank percentiles of one run (one group, one repetition, one arm)."""

    seq: int = Field(description="the arm's seq")
    phase: Phase
    run: str
    repetition: int
    input_nominal: int
    concurrency: int | None = Field(description="the run's concurrency; null in an open-loop run")
    rate: float | None = Field(
        default=None, description="open loop: the run's planned arrival rate (requests per second); its achieved rate is in client"
    )
    requests: int
    ok: int
    reconciled: bool | None
    percentiles: dict[str, dict[str, float | None]] = Field(description="metric -> {p50, p90, p99}")
    timing: list[TimingGap] = Field(description="TTFT, then end-to-end: the client's mean against the engine's")
    client: RunClient | None = Field(
        default=None, description="the client's health over the run; null when its run record holds none (journals that predate it)"
    )


class ArmSummary(_Doc):
    """One arm's journal: identity in the trial, hash, counts."""

    seq: int
    arm: str
    phase: Phase
    role: Literal["control", "candidate"]
    label: str
    journal: str
    sha256: str
    size: int
    kv_token_slots: int | None
    timed_ok: int
    timed_recorded: int
    timed_planned: int
    warmup: int
    runs_reconciled: int
    runs_unreconcilable: int = Field(description="runs whose record has no reconciliation verdict: no counters to compare")
    runs_without_counters: int = Field(description="of runs_unreconcilable, those whose record holds no counters at all")
    runs_total: int
    gates_passed: int
    gates_total: int
    failed_gates: list[str]
    checks: dict[str, bool]
    warnings: dict[str, bool] = Field(description="checks at level warning: shown, never failing the arm")
    telemetry: TelemetrySummary | None = Field(description="extremes over the arm's sampled telemetry series, recomputed; null without telemetry")
    timing: list[ArmTiming] = Field(description="TTFT, then end-to-end: the client's times against the engine's")
    imported: ImportedFrom | None = Field(
        default=None, description="the journal header's imported: the other client's files this arm was imported from; null for a collected arm"
    )


class SlotChange(_Doc):
    """Engine-reported KV token slots of the candidate against the original."""

    original: int | None
    candidate: int | None
    restored: int | None
    change_pct: float | None
    restored_matches_original: bool | None


class TrialAnalysis(_Doc):
    trial_id: str
    title: str
    engine_kind: str
    simulated: bool
    design: str = Field(description="the arms' roles in run order, control A and candidate B: 'A/B/A', 'A/B/A/B/A'")
    order: Literal["fixed", "randomised"] = Field(description="the order of the groups within a repetition")
    rule: RuleSummary
    candidate_label: str
    arms: list[ArmSummary]
    groups: list[GroupResult]
    runs: list[RunStats]
    failures: list[Failure]
    timed_ok: int
    timed_planned: int
    timed_failed: int = Field(description="timed requests recorded as failed (the length of failures)")
    runs_reconciled: int
    runs_unreconcilable: int = Field(description="runs with no counters to reconcile (reconciled null)")
    runs_without_counters: int = Field(description="of runs_unreconcilable, those whose record holds no counters at all")
    runs_total: int
    groups_total: int = Field(description="workload groups of the plan (the length of groups)")
    pooled_n_min: int = Field(description="fewest requests in one pooled entry of the decision metric")
    pooled_n_max: int = Field(description="most requests in one pooled entry of the decision metric")
    wins: int
    verdicts: dict[str, int] = Field(description="groups per verdict: win, no-win, regression, inconclusive (statistics v4: and likely)")
    outcome: Literal["promote", "no-promotion"]
    blocked_by: list[str] = Field(description="why a trial whose groups win still cannot promote")
    slots: SlotChange
    restored_ok: bool = Field(
        description="the restored arm's gates and lifecycle checks passed and its KV token slots matched the original's (or were not recorded)"
    )
    findings: list[Finding]
    client_bounds: ClientBounds = Field(description="the declared bounds of the client's health (trial.json's client)")
    client_runs_recorded: int = Field(description="runs whose record holds the client's health")
    client_runs_saturated: int = Field(description="runs whose client exceeded a declared bound")
    prefix_tokens: int | None = Field(
        default=None, description="the shared prefixes' nominal tokens (trial.json's workload); null: every prompt is unique"
    )
    prefixes: int | None = Field(default=None, description="how many distinct shared prefixes; null without them")


class DecisionSummary(_Doc):
    """The decision over its trials: the outcome, and the totals and verdicts its page states."""

    id: str | None
    title: str | None
    date: str | None
    outcome: Literal["promote", "no-promotion"]
    promoted: list[str]
    trials: list[str]
    simulated: bool = Field(description="at least one trial ran on the simulated engine")
    timed_ok: int = Field(description="timed requests completed, over every trial")
    timed_planned: int = Field(description="timed requests planned, over every trial")
    pooled_n_min: int = Field(description="fewest requests in one pooled entry of a decision metric, over every trial")
    pooled_n_max: int = Field(description="most requests in one pooled entry of a decision metric, over every trial")
    restored_ok: bool = Field(description="every trial's restoration held (each trial's restored_ok)")


class Analysis(_Doc):
    """The whole analysis of one decision folder or trial bundle."""

    schema_: Literal["evidence-kit/analysis/v2"] = Field(alias="schema", default=ANALYSIS_SCHEMA)
    tool_version: str
    definitions: dict[str, str]
    decision: DecisionSummary
    trials: list[TrialAnalysis]

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def analysis_json(analysis: Analysis) -> str:
    """The analysis document as ``evidence-kit analyze --json`` prints it and the site publishes it
    (``analysis.json``): canonical JSON, sorted keys, ASCII-escaped as it always was."""
    return canonical_json(analysis.model_dump(mode="json", by_alias=True), ascii_only=True).decode()
