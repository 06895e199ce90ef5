"""Findings: the rows and facts a page must call out by name, each from a stated rule."""

from __future__ import annotations

from ..model.findings import (
    ArmCheck,
    ArmGate,
    ArmIncomplete,
    ArmTimingGap,
    ArmTimingUnchecked,
    CheckFailedFinding,
    CheckWarningFinding,
    ControlDriftFinding,
    Count,
    Drift,
    FailuresFinding,
    FewRepetitions,
    FewRepetitionsFinding,
    Finding,
    GateFailedFinding,
    GuardrailBreach,
    GuardrailBreachedFinding,
    Imported,
    ImportedFinding,
    Improvements,
    IncompleteFinding,
    NoiseFinding,
    RegressionFinding,
    Slots,
    SlotsNotRestoredFinding,
    SlowerThanBoth,
    SplitVerdictFinding,
    TimingGapFinding,
    TimingUncheckedFinding,
    Unreconcilable,
    UnreconcilableFinding,
    UnreconciledFinding,
    WinFinding,
    WithinNoise,
)
from ..model.phase import CONTROLS
from .report import TrialAnalysis

__all__ = ["ADVISED_REPETITIONS", "findings_for", "phase_blocks"]

# Measured (bench/stat_coverage.py, docs/benchmarks.md): the studentised default 95 % interval (statistics v3)
# covered 93-97 % from 2 runs per arm in every scenario and shape measured (the adjusted percentile interval before
# it covered 91 % at 3 runs, hence a threshold of 5 then). Below 2 no run-level interval can be drawn at all, so a
# rule that reads the intervals says so when an arm holds fewer.
ADVISED_REPETITIONS = 2


def phase_blocks(arms: list[tuple[int, str]]) -> dict[int, int | None]:
    """Arm seq -> its place among the arms of its phase where the phase has several, else None."""
    per_phase: dict[str, int] = {}
    for _, phase in arms:
        per_phase[phase] = per_phase.get(phase, 0) + 1
    seen: dict[str, int] = {}
    out: dict[int, int | None] = {}
    for seq, phase in arms:
        seen[phase] = seen.get(phase, 0) + 1
        out[seq] = seen[phase] if per_phase[phase] > 1 else None
    return out


def _imported(analysis: TrialAnalysis) -> list[Finding]:
    """One finding per tool the trial's arms were imported from: its versions and what it does not record."""
    tools: dict[str, tuple[set[str], list[str]]] = {}
    for arm in analysis.arms:
        if arm.imported is not None:
            versions, absent = tools.setdefault(arm.imported.tool, (set(), []))
            versions.update(f.version for f in arm.imported.files if f.version is not None)
            absent += [a for a in arm.imported.not_recorded if a not in absent]
    return [
        ImportedFinding(kind="imported", values=Imported(tool=tool, versions=sorted(versions), not_recorded=absent))
        for tool, (versions, absent) in sorted(tools.items())
    ]


def _incomplete(analysis: TrialAnalysis) -> list[Finding]:
    """One finding per arm that completed no timed request in some group: the trial is incomplete there."""
    completed: dict[tuple[int, int, int | None, float | None], int] = {}
    for run in analysis.runs:
        key = (run.seq, run.input_nominal, run.concurrency, run.rate)
        completed[key] = completed.get(key, 0) + run.ok
    blocks = phase_blocks([(a.seq, a.phase) for a in analysis.arms])
    out: list[Finding] = []
    for arm in analysis.arms:
        empty = [g.label for g in analysis.groups if not completed.get((arm.seq, g.input_nominal, g.concurrency, g.rate))]
        if empty:
            values = ArmIncomplete(
                phase=arm.phase,
                block=blocks[arm.seq],
                completed=arm.timed_ok,
                planned=arm.timed_planned,
                groups=empty,
                groups_total=len(analysis.groups),
            )
            out.append(IncompleteFinding(kind="incomplete", values=values))
    return out


def findings_for(analysis: TrialAnalysis, fewest_runs: int | None = None) -> list[Finding]:
    """First each arm that completed no timed request in a group (the trial is incomplete); then per group:
    wins, wins within the noise, breached guardrails, split verdicts, regressions and
    control drift; then the tools the trial was imported from; then failures, unreconciled and unreconcilable runs; arm by arm, failed gates,
    failed checks, warnings, timing gaps beyond the bound and times the bound could not be checked on; then few repetitions (``fewest_runs``: the
    fewest runs with values of any pooled entry of any group) and slots not restored — in that order."""
    metric = analysis.rule.metric
    out: list[Finding] = _incomplete(analysis)
    for g in analysis.groups:
        by_control = {c.control: c for c in g.comparisons[metric]}
        improvements = Improvements(
            improvement_vs_before_pct=by_control["before"].improvement_pct,
            improvement_vs_restored_pct=by_control["restored"].improvement_pct,
        )
        if g.verdict.win:
            out.append(WinFinding(kind="win", group=g.label, values=improvements))
        elif g.verdict.split:
            out.append(SplitVerdictFinding(kind="split-verdict", group=g.label, values=improvements))
        if g.verdict.within_noise:
            # The interval reaches no change: above 1 for a latency, below it for goodput (higher is better).
            noisy = ", ".join(
                i.control for i in g.intervals if i.high is not None and i.low is not None and (i.low <= 1 if metric == "goodput" else i.high >= 1)
            )
            undrawn = ", ".join(i.control for i in g.intervals if i.high is None)
            within = WithinNoise(**improvements.model_dump(), controls=noisy, undrawn=undrawn)
            out.append(NoiseFinding(kind="win-within-noise", group=g.label, values=within))
        for guard in g.guardrails:
            if guard.breached:
                assert guard.change_vs_before_pct is not None and guard.change_vs_restored_pct is not None
                breach = GuardrailBreach(
                    **guard.rule.model_dump(),
                    change_vs_before_pct=guard.change_vs_before_pct,
                    change_vs_restored_pct=guard.change_vs_restored_pct,
                    within_noise=guard.within_noise,
                )
                out.append(GuardrailBreachedFinding(kind="guardrail-breached", group=g.label, values=breach))
        before, restored = (by_control[c].change_pct for c in CONTROLS)
        if g.verdict.verdict == "regression":
            assert before is not None and restored is not None
            slower = SlowerThanBoth(change_vs_before_pct=before, change_vs_restored_pct=restored)
            out.append(RegressionFinding(kind="regression", group=g.label, values=slower))
        if g.verdict.drift_flagged:
            drift = Drift(drift_pct=g.verdict.control_drift_pct)
            out.append(ControlDriftFinding(kind="control-drift", group=g.label, values=drift))
    out += _imported(analysis)
    if analysis.failures:
        out.append(FailuresFinding(kind="failures", values=Count(count=len(analysis.failures))))
    disagreed = analysis.runs_total - analysis.runs_reconciled - analysis.runs_unreconcilable
    if disagreed:
        out.append(UnreconciledFinding(kind="unreconciled", values=Count(count=disagreed)))
    if analysis.runs_unreconcilable:  # nothing compared, so nothing disagreed: never "did not reconcile"
        runs = Unreconcilable(count=analysis.runs_unreconcilable, without_counters=analysis.runs_without_counters)
        out.append(UnreconcilableFinding(kind="not-reconcilable", values=runs))
    blocks = phase_blocks([(a.seq, a.phase) for a in analysis.arms])
    bound = analysis.rule.max_timing_gap_ms
    for arm in analysis.arms:
        block = blocks[arm.seq]
        for gate in arm.failed_gates:
            out.append(GateFailedFinding(kind="gate-failed", values=ArmGate(phase=arm.phase, block=block, gate=gate)))
        for name, ok in sorted(arm.checks.items()):
            if not ok:
                failed = ArmCheck(phase=arm.phase, block=block, check=name)
                out.append(CheckFailedFinding(kind="check-failed", values=failed))
        for name, ok in sorted(arm.warnings.items()):
            if not ok:
                warned = ArmCheck(phase=arm.phase, block=block, check=name)
                out.append(CheckWarningFinding(kind="check-warning", values=warned))
        for timing in arm.timing:
            if timing.runs_beyond_bound and timing.largest_gap_ms is not None and bound:
                gap = ArmTimingGap(
                    phase=arm.phase,
                    block=block,
                    metric=timing.metric,
                    runs=timing.runs_beyond_bound,
                    largest_gap_ms=timing.largest_gap_ms,
                    bound_ms=bound,
                )
                out.append(TimingGapFinding(kind="timing-gap", values=gap))
        for timing in arm.timing:  # a declared bound is checked on every run, or it blocks (as guardrails do)
            unchecked = timing.runs_not_comparable + timing.runs_not_reconcilable
            if unchecked and bound:
                not_checked = ArmTimingUnchecked(
                    phase=arm.phase,
                    block=block,
                    metric=timing.metric,
                    runs=unchecked,
                    runs_total=arm.runs_total,
                    not_comparable=timing.runs_not_comparable,
                    not_reconcilable=timing.runs_not_reconcilable,
                    bound_ms=bound,
                )
                out.append(TimingUncheckedFinding(kind="timing-unchecked", values=not_checked))
    confidence = analysis.rule.confidence
    if confidence != "point" and fewest_runs is not None and fewest_runs < ADVISED_REPETITIONS:
        few = FewRepetitions(confidence=confidence, runs=fewest_runs, advised=ADVISED_REPETITIONS)
        out.append(FewRepetitionsFinding(kind="few-repetitions", values=few))
    slots = analysis.slots
    if slots.restored_matches_original is False and slots.original is not None and slots.restored is not None:
        values = Slots(original=slots.original, restored=slots.restored)
        out.append(SlotsNotRestoredFinding(kind="slots-not-restored", values=values))
    return out
