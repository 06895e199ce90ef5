"""One trial's analysis: arms, runs, groups, slots, the rule's outcome and the findings."""

from __future__ import annotations

import math

from ..model.evidence import ArmEvidence, TrialEvidence
from ..model.findings import Finding, TelemetryFields, TelemetryMismatchFinding
from ..model.journal import Request, Run
from ..model.trial import ClientBounds, DecisionRule, Workload
from .client_health import run_client, saturated_text, saturation_findings, unjudged_text
from .family import FAMILY_ALPHA, holm
from .findings import findings_for, phase_blocks
from .groups import METRICS, fewest_runs, group_results, guardrail_rule, pct
from .report import VERDICTS, VERDICTS_V3, ArmSummary, Failure, GroupResult, RuleSummary, RunStats, SlotChange, TrialAnalysis
from .schedule import schedule
from .stats import change, nearest_rank
from .telemetry import telemetry_summary
from .timing import arm_timing, run_timing, unchecked_text
from .verdicts import family_adjusted

__all__ = ["analyze_trial", "PERCENTILES"]

PERCENTILES: tuple[int, ...] = (50, 90, 99)


def _arm_summary(arm: ArmEvidence, planned: int, runs: list[RunStats]) -> ArmSummary:
    timed = arm.timed
    checks: dict[str, bool] = {}
    warnings: dict[str, bool] = {}
    for check in arm.checks:
        into = warnings if check.level == "warning" else checks
        into[check.name] = into.get(check.name, True) and check.ok
    return ArmSummary(
        seq=arm.ref.seq,
        arm=arm.ref.arm,
        phase=arm.ref.phase,
        role=arm.ref.role,
        label=arm.ref.label or arm.ref.arm,
        journal=arm.ref.journal,
        sha256=arm.sha256,
        size=arm.size,
        kv_token_slots=arm.header.engine.kv_token_slots,
        timed_ok=sum(r.ok for r in timed),
        timed_recorded=len(timed),
        timed_planned=planned,
        warmup=sum(r.warmup for r in arm.requests),
        runs_reconciled=sum(run.reconciled is True for run in arm.runs),
        runs_unreconcilable=sum(run.reconciled is None for run in arm.runs),
        runs_without_counters=sum(run.reconciled is None and run.counters is None for run in arm.runs),
        runs_total=len(arm.runs),
        gates_passed=sum(g.ok for g in arm.gates),
        gates_total=len(arm.gates),
        failed_gates=[f"{g.name}@{g.target}" for g in arm.gates if not g.ok],
        checks=checks,
        warnings=warnings,
        telemetry=None if arm.telemetry is None else telemetry_summary(arm.telemetry),
        timing=arm_timing([gap for run in runs for gap in run.timing]),
        imported=arm.header.imported,
    )


def _trace_schedules(evidence: TrialEvidence) -> dict[tuple[int, float], list[float]]:
    """A replayed trace's schedule per group, (input, rate) -> due offsets by request index: the trace is private,
    but it offers the same arrivals to every arm and repetition, so each index's earliest ``scheduled_s`` over
    every run of the group (a run whose journal states later due times than the others' is judged by theirs)."""
    if evidence.trial.workload.arrival != "trace":
        return {}
    due: dict[tuple[int, float], dict[int, float]] = {}
    for arm in evidence.arms:
        for r in arm.timed:
            if r.rate is not None and r.scheduled_s is not None:
                at = due.setdefault((r.input_nominal, r.rate), {})
                at[r.index] = min(at.get(r.index, r.scheduled_s), r.scheduled_s)
    return {key: [at.get(i, math.inf) for i in range(max(at) + 1)] for key, at in due.items()}


def _due(workload: Workload, run: Run, requests: list[Request], traced: dict[tuple[int, float], list[float]]) -> list[float] | None:
    """An open-loop run's schedule as its plan gives it, as the collector draws it (seeded arrivals; a trace's,
    the earliest every run of its group states)."""
    if run.rate is None or workload.arrival not in ("poisson", "constant"):
        return traced.get((run.input_nominal, run.rate)) if run.rate is not None else None
    count = max([run.requests, *(r.index + 1 for r in requests)])
    # Rounded as the collector journals them (scheduled_s), so an honest journal's figures are its own.
    return [
        round(offset, 6)
        for offset in schedule(
            count,
            run.rate,
            workload.arrival,
            seed=workload.seed,  # type: ignore[arg-type]
            input_nominal=run.input_nominal,
        )
    ]


def _run_stats(
    arm: ArmEvidence, timing_bound_ms: float | None, bounds: ClientBounds, workload: Workload, traced: dict[tuple[int, float], list[float]]
) -> list[RunStats]:
    by_run: dict[str, list[Request]] = {}
    for r in arm.timed:
        by_run.setdefault(r.run, []).append(r)
    out = []
    for run in arm.runs:
        requests = by_run.get(run.run, [])
        ok = [r for r in requests if r.ok]
        percentiles = {}
        for metric in METRICS:
            values = [getattr(r, metric) for r in ok if getattr(r, metric) is not None]
            percentiles[metric] = {f"p{p}": nearest_rank(values, p) for p in PERCENTILES}
        out.append(
            RunStats(
                seq=arm.ref.seq,
                phase=arm.ref.phase,
                run=run.run,
                repetition=run.repetition,
                input_nominal=run.input_nominal,
                concurrency=run.concurrency,
                rate=run.rate,
                requests=len(requests),
                ok=len(ok),
                reconciled=run.reconciled,
                percentiles=percentiles,
                timing=run_timing(run, requests, timing_bound_ms),
                client=run_client(run, requests, bounds, _due(workload, run, requests, traced)),
            )
        )
    return out


def _slots(evidence: TrialEvidence) -> SlotChange:
    """The first control block's slots, the (first) candidate block's and the last control block's."""
    before, candidate, restored = (arm.header.engine.kv_token_slots for arm in (evidence.arms[0], evidence.arm("candidate"), evidence.arms[-1]))
    return SlotChange(
        original=before,
        candidate=candidate,
        restored=restored,
        change_pct=pct(change(candidate, before)),
        restored_matches_original=None if before is None or restored is None else before == restored,
    )


def _restored_ok(arms: list[ArmSummary]) -> bool:
    """Restoration held: every restored arm's gates and lifecycle checks passed, and its KV token
    slots are the original's (slots that were not recorded do not count against it). An imported
    restored arm shows nothing of the kind (its client runs no checks), so it never holds."""
    original = arms[0].kv_token_slots
    return all(
        a.imported is None
        and a.gates_passed == a.gates_total
        and all(a.checks.values())
        and (original is None or a.kv_token_slots is None or a.kv_token_slots == original)
        for a in arms
        if a.phase == "restored"
    )


def _pooled_sizes(groups: list[GroupResult], metric: str) -> tuple[int, int]:
    """(fewest, most) requests in one pooled entry of ``metric``, over every group and arm (goodput's: every
    timed request sent)."""
    if metric == "goodput":
        sizes = [load.requests for g in groups for load in (g.load or {}).values()]
    else:
        sizes = [p.n for g in groups for p in g.pooled[metric].values()]
    return min(sizes), max(sizes)


def _family(groups: list[GroupResult], rule: DecisionRule, decision_trials: int) -> list[GroupResult]:
    """Statistics v4, confidence bound: Holm's step-down over the trial's groups at the decision's share of
    :data:`.family.FAMILY_ALPHA` (``family.py``); a win it does not admit is likely, not resolved."""
    if rule.version != 4 or rule.confidence != "bound" or not groups:
        return groups
    tests = holm([g.verdict.p_value for g in groups], FAMILY_ALPHA / decision_trials)
    for g, (level, rejected) in zip(groups, tests):
        g.verdict = family_adjusted(g.verdict, level, rejected)
    return groups


def _rule_summary(rule: DecisionRule, groups: int, decision_trials: int) -> RuleSummary:
    v4 = rule.version == 4
    bound = v4 and rule.confidence == "bound"
    return RuleSummary(
        metric=rule.metric,
        statistic=rule.statistic,
        min_improvement_pct=rule.min_improvement * 100,
        threshold_low_ratio=1 - rule.min_improvement,
        threshold_high_ratio=1 + rule.min_improvement,
        against=rule.against,
        promote_if=rule.promote_if,
        confidence=rule.confidence,
        guardrails=[guardrail_rule(g) for g in rule.guardrails],
        max_timing_gap_ms=rule.max_timing_gap_ms,
        statistics=4 if v4 else None,
        family_alpha_pct=FAMILY_ALPHA * 100 if bound else None,
        family_groups=groups if bound else None,
        decision_trials=decision_trials if bound else None,
    )


def analyze_trial(evidence: TrialEvidence, decision_trials: int = 1) -> TrialAnalysis:
    """Every figure of one trial, computed from its journals alone; under statistics v4 a decision of
    ``decision_trials`` trials gives each its share of the one error budget."""
    trial = evidence.trial
    rule = trial.decision_rule
    planned = trial.workload.planned_per_arm
    traced = _trace_schedules(evidence)
    runs = {arm.ref.seq: _run_stats(arm, rule.max_timing_gap_ms, trial.client, trial.workload, traced) for arm in evidence.arms}
    arms = [_arm_summary(arm, planned, runs[arm.ref.seq]) for arm in evidence.arms]
    groups = _family(group_results(evidence, decision_trials), rule, decision_trials)
    failures = [
        Failure(seq=arm.ref.seq, phase=arm.ref.phase, run=r.run, index=r.index, error=r.error or "")
        for arm in evidence.arms
        for r in arm.timed
        if not r.ok
    ]
    wins = sum(g.verdict.win for g in groups)
    rule_met = wins >= 1 if rule.promote_if == "any-group" else wins == len(groups)
    blocked_by = []
    timed_ok = sum(a.timed_ok for a in arms)
    timed_planned = sum(a.timed_planned for a in arms)
    if timed_ok < timed_planned:
        blocked_by.append(f"{timed_planned - timed_ok} of {timed_planned} planned timed requests did not complete")
    blocks = phase_blocks([(a.seq, a.phase) for a in arms])  # 'candidate 2:smoke', as the findings name it
    failed_gates = [f"{a.phase}{'' if blocks[a.seq] is None else f' {blocks[a.seq]}'}:{g}" for a in arms for g in a.failed_gates]
    if failed_gates:
        blocked_by.append("failed gates: " + ", ".join(failed_gates))
    breached = [g.label for g in groups if any(r.breached for r in g.guardrails)]
    if breached:
        blocked_by.append("guardrails breached at " + ", ".join(breached))
    unchecked = [g.label for g in groups if not all(r.checked for r in g.guardrails)]
    if unchecked:
        blocked_by.append(
            "guardrails could not be checked (the guarded statistic is missing or zero in an arm, or the candidate's "
            "requests carry its metric less often than a control's) at " + ", ".join(unchecked)
        )
    beyond = sum(any(gap.beyond_bound for gap in run.timing) for arm_runs in runs.values() for run in arm_runs)
    if beyond:
        blocked_by.append(
            f"in {beyond} run(s) the client's mean TTFT or end-to-end time differs from the engine's own "
            f"by more than the declared {rule.max_timing_gap_ms:g} ms"
        )
    all_runs = [stats for arm in evidence.arms for stats in runs[arm.ref.seq]]
    timing_unchecked = unchecked_text(all_runs, blocks, rule.max_timing_gap_ms)
    if timing_unchecked:
        blocked_by.append(timing_unchecked)
    saturated = saturated_text(all_runs, blocks)
    if saturated:
        blocked_by.append(saturated)
    unjudged = unjudged_text(all_runs, blocks)
    if unjudged:
        blocked_by.append(unjudged)
    slots = _slots(evidence)
    pooled_n_min, pooled_n_max = _pooled_sizes(groups, rule.metric)
    analysis = TrialAnalysis(
        trial_id=trial.trial_id,
        title=trial.title,
        engine_kind=trial.engine_kind,
        simulated=trial.simulated,
        design=trial.design,
        order=trial.workload.order or "fixed",
        prefix_tokens=trial.workload.prefix_tokens,
        prefixes=trial.workload.prefixes,
        rule=_rule_summary(rule, len(groups), decision_trials),
        candidate_label=trial.arm("candidate").label or trial.arm("candidate").arm,
        arms=arms,
        groups=groups,
        runs=all_runs,
        failures=failures,
        timed_ok=timed_ok,
        timed_planned=timed_planned,
        timed_failed=len(failures),
        runs_reconciled=sum(a.runs_reconciled for a in arms),
        runs_unreconcilable=sum(a.runs_unreconcilable for a in arms),
        runs_without_counters=sum(a.runs_without_counters for a in arms),
        runs_total=sum(a.runs_total for a in arms),
        groups_total=len(groups),
        pooled_n_min=pooled_n_min,
        pooled_n_max=pooled_n_max,
        wins=wins,
        verdicts={name: sum(g.verdict.verdict == name for g in groups) for name in (VERDICTS if rule.version == 4 else VERDICTS_V3)},
        outcome="promote" if rule_met and not blocked_by else "no-promotion",
        blocked_by=blocked_by if rule_met else [],
        slots=slots,
        restored_ok=_restored_ok(arms),
        findings=[],
        client_bounds=trial.client,
        client_runs_recorded=sum(r.client is not None for r in all_runs),
        client_runs_saturated=sum(r.client is not None and r.client.saturated for r in all_runs),
    )
    analysis.findings = findings_for(analysis, fewest_runs(evidence)) + _telemetry_mismatches(evidence, arms) + saturation_findings(all_runs, blocks)
    return analysis


def _telemetry_mismatches(evidence: TrialEvidence, arms: list[ArmSummary]) -> list[Finding]:
    """Footers whose recorded telemetry summary is not what their own samples give."""
    out: list[Finding] = []
    for arm, summary in zip(evidence.arms, arms):
        recorded = arm.footer.telemetry if arm.footer else None
        if recorded is None:
            continue
        have = recorded.model_dump()
        want = summary.telemetry.model_dump() if summary.telemetry else {}
        fields = sorted(k for k in {*have, *want} if have.get(k) != want.get(k))
        if fields:
            block = phase_blocks([(a.ref.seq, a.ref.phase) for a in evidence.arms])[arm.ref.seq]
            values = TelemetryFields(phase=arm.ref.phase, block=block, fields=", ".join(fields))
            out.append(TelemetryMismatchFinding(kind="telemetry-mismatch", values=values))
    return out
