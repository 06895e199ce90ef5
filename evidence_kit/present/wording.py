"""Generated sentences: every word of judgement on a page comes from a rule, stated here."""

from __future__ import annotations

from ..analyze.report import (
    VERDICTS,
    Analysis,
    Finding,
    GroupResult,
    GuardrailResult,
    GuardrailRule,
    TrialAnalysis,
)
from ..model.findings import (
    ArmCheck,
    ArmGate,
    ArmIncomplete,
    ArmTimingGap,
    ArmTimingUnchecked,
    ClientExceedance,
    ClientSaturation,
    ImportedFinding,
    IncompleteFinding,
    TelemetryFields,
)
from .arms import arm_phases
from .format import count, faster_slower, higher_lower, listed, percent, percent_beside, seconds, signed_percent
from .timing import TIMING_NAMES, milliseconds, not_reconcilable_why
from .verdict_meanings import (
    VERDICT_MEANINGS,
    VERDICT_WORDS,
    detectable_sentence_v4,
    interval_method_v4,
    is_v4,
    likely_detail,
    rule_confidence_v4,
    verdict_definitions_v4,
)

__all__ = [
    "finding_sentence",
    "interval_level",
    "rule_sentence",
    "slots_sentence",
    "requests_sentence",
    "failures_text",
    "outcome_sentence",
    "gates_sentence",
    "wins_text",
    "wins_sentence",
    "simulated_sentence",
    "guardrail_text",
    "verdict_text",
    "verdicts_text",
    "detectable_text",
    "detectable_sentence",
    "verdict_definitions",
    "VERDICT_MEANINGS",
    "VERDICT_WORDS",
    "interval_method_sentence",
    "guardrail_result_text",
    "threshold_labels",
    "METRIC_NAMES",
    "design_sentence",
    "client_health_sentence",
    "imported_sentence",
    "tool_name",
    "content_ttft_sentence",
]

METRIC_NAMES = {
    "e2e_s": "end-to-end latency",
    "ttft_s": "time to first token",
    "ttft_content_s": "visible-content TTFT",
    "completion_tokens": "output tokens",
    "goodput": "goodput (share of requests meeting every SLO)",
}
CONFIDENCE_SENTENCES = {
    "point": " Confidence point (statistics v3): the point estimates alone decide, with no error control "
    "(a true change under the threshold wins often).",
    "significant": " A win must also be significant: each run-level 95% interval of the ratio excludes no change.",
    "bound": " A win must clear the threshold at the conservative end of each run-level 95% interval of the ratio.",
}


def guardrail_text(rule: GuardrailRule) -> str:
    """'p90 time to first token must not regress by more than 10%'."""
    what = f"{rule.statistic} {METRIC_NAMES.get(rule.metric, rule.metric)}"
    if rule.kind == "max-change":
        return f"{what} must not change by more than {rule.bound_pct:g}%"
    if rule.bound_pct == 0:
        return f"{what} must not regress"
    return f"{what} must not regress by more than {rule.bound_pct:g}%"


def interval_level(trial: TrialAnalysis) -> str:
    """What the trial's intervals are drawn over, in words: the launch under statistics v4, else the run."""
    return "launch-level" if is_v4(trial) else "run-level"


def rule_sentence(trial: TrialAnalysis) -> str:
    """The predeclared rule in words: threshold, scope, confidence and guardrails."""
    rule = trial.rule
    scope = "one group" if rule.promote_if == "any-group" else "every group"
    against = (
        "the drift-corrected control (the original blocks' least-squares line where the candidate ran)"
        if is_v4(trial) and trial.design != "A/B/A"
        else "both controls (original before and original restored)"
    )
    text = f"At least {rule.min_improvement_pct:g}% lower pooled median {METRIC_NAMES[rule.metric]} against {against}; promote when {scope} wins."
    text += rule_confidence_v4(trial) if is_v4(trial) else CONFIDENCE_SENTENCES[rule.confidence]
    if rule.guardrails:
        text += " Guardrails (against both controls): " + "; ".join(guardrail_text(g) for g in rule.guardrails) + "."
    if rule.max_timing_gap_ms is not None:
        text += (
            f" Client and engine must agree: each run's mean client TTFT and end-to-end time within "
            f"{rule.max_timing_gap_ms:g} ms of the engine's own, either way, compared on every run."
        )
    return text


def verdict_text(group: GroupResult) -> str:
    """A group's verdict in words: 'win', 'no-win', 'inconclusive: the controls disagree'…, with a
    point-estimate win inside the noise and a breached or uncheckable guardrail said next to it."""
    verdict = group.verdict
    text = VERDICT_WORDS[(verdict.verdict, verdict.reason)]
    if verdict.verdict == "likely":
        text += likely_detail(group)
    elif verdict.within_noise:
        level = "launch-level" if any(i.method == "launch-t" for i in group.intervals) else "run-level"
        why = (
            f"no {level} interval could be drawn"
            if any(i.low is None or i.high is None for i in group.intervals)
            else "an interval includes no change"
        )
        text += f" (point estimates only: {why})" if verdict.win else f" (the point estimates clear the threshold, but {why})"
    if any(r.breached for r in group.guardrails):
        text += "; guardrail breached"
    elif not verdict.guardrails_held:
        text += "; guardrail not checkable"
    return text


# What each confidence asks of a win, as the verdict list says it.
WIN_CONFIDENCE = {
    "point": "on the point estimates (the rule's confidence is point)",
    "significant": "on the point estimates, and each run-level 95% interval excludes no change (the rule's confidence is significant)",
    "bound": "at the conservative end of each run-level 95% interval (the rule's confidence is bound)",
}


def verdict_definitions(trial: TrialAnalysis) -> list[str]:
    """The verdicts in the order they are tried (the first that applies is the group's), each with its meaning."""
    if is_v4(trial):
        return verdict_definitions_v4(trial)
    threshold = f"{trial.rule.min_improvement_pct:g}%"
    return [
        f"win: at least {threshold} faster than both controls, {WIN_CONFIDENCE[trial.rule.confidence]};",
        "regression: slower than both controls by at least half the threshold, at the same confidence;",
        "inconclusive, the controls disagree: the original before and the original restored differ by at least "
        f"{threshold}, so the row cannot be decided cleanly;",
        f"no-win: against at least one control the interval excludes an improvement of {threshold}: the data say the candidate does not win;",
        "inconclusive, unresolved: the intervals can resolve the threshold neither way.",
    ]


def interval_method_sentence(trial: TrialAnalysis | None = None) -> str:
    """How the intervals of the tables were drawn, and where the other method's are."""
    if trial is not None and is_v4(trial):
        return interval_method_v4(trial)
    return (
        "Intervals are 95% run-level intervals of the candidate / control ratio, studentised: the run, not the "
        "request, is the unit that repeats, so each arm's uncertainty is estimated from the spread of its run "
        "means (Kalibera & Jones 2013), and the interval's width is calibrated by a bootstrap-t (a resampled "
        "world with the estimated run-to-run and request-to-request spreads), so few runs give the wider "
        "interval their few degrees of freedom call for (a Fieller interval of the ratio). Request-level "
        "intervals, which treat every request as independent, are in analysis.json for comparison. n.s. marks an "
        "interval that includes a ratio of 1 (no change)."
    )


def detectable_sentence(trial: TrialAnalysis) -> str:
    """'Differences under 9.88% (~6K/C1), … are not resolvable with this data (80% power at 95% confidence…)'."""
    if is_v4(trial):
        return detectable_sentence_v4(trial)
    parts = [f"{detectable_text(g)} ({g.label})" for g in trial.groups if g.detectable_pct is not None]
    missing = [g.label for g in trial.groups if g.detectable_pct is None]
    text = "Smallest resolvable change: "
    if parts:
        text += (
            f"differences under {listed(parts)} are not resolvable with this data: 80% power at 95% confidence, "
            "from the wider of each group's two run-level intervals."
        )
    if missing:
        text += (" " if parts else "") + (
            f"not estimable at {listed(missing)}: a run-level interval needs at least two runs with values in each arm."
        )
    return text


def guardrail_result_text(result: GuardrailResult) -> str:
    """'held', 'BREACHED', 'BREACHED (within the noise: …)', or 'NOT CHECKED' (which blocks like a breach)."""
    if not result.checked:
        return "NOT CHECKED: the guarded statistic is missing or zero in an arm; it blocks"
    if not result.breached:
        return "held"
    if result.within_noise:
        return "BREACHED (within the noise: an interval includes no change; it still blocks)"
    return "BREACHED"


def threshold_labels(trial: TrialAnalysis) -> list[tuple[float, str]]:
    """The interval charts' lines: (candidate / control ratio, words), the threshold either way and no change."""
    threshold = f"{trial.rule.min_improvement_pct:g}%"
    return [(trial.rule.threshold_low_ratio, f"{threshold} faster"), (1.0, "no change"), (trial.rule.threshold_high_ratio, f"{threshold} slower")]


def verdicts_text(trial: TrialAnalysis) -> str:
    """'0 win, 2 no-win, 1 regression, 1 inconclusive'."""
    return ", ".join(f"{trial.verdicts[name]} {name}" for name in VERDICTS if name in trial.verdicts)


def detectable_text(group: GroupResult) -> str:
    """'9.85%': the smallest change this group's data resolve; differences under it are not resolvable."""
    return "not estimable" if group.detectable_pct is None else percent(group.detectable_pct)


IMPORTED_TOOLS = {"vllm-bench-serve": "vllm bench serve", "guidellm": "GuideLLM", "aiperf": "AIPerf", "inference-perf": "inference-perf"}
NOT_RECORDED_WORDS = {
    "counter-reconciliation": "no counter reconciliation",
    "functional-gates": "no functional gates",
    "lifecycle-checks": "no lifecycle checks (restoration identity, process stability)",
    "content-ttft": "no visible-content TTFT distinct from reasoning",
    "client-health": "no client health",
    "warmup": "no warmup requests recorded",
    "engine-identity": "no engine identity or KV capacity",
    "engine-version": "no engine identity (the KV capacity is the server metrics')",
    "counter-window": "no counter reconciliation (the server metrics' window was not the timed requests' alone: "
    "a warmup request ended inside it, or the scrapes did not span it)",
}


# An imported client whose own summaries take percentiles another way than this page (whose median is the
# mean of the two middle values of an even count), and how: its console and this page can differ a little.
PERCENTILE_WORDS = {
    "guidellm": "GuideLLM's own summaries take the nearest-rank percentile (its median is the lower of the two "
    "middle values of an even count); this page's medians are the mean of the two, so they can differ from "
    "GuideLLM's console in the last digits, from the same requests",
}


def tool_name(tool: str) -> str:
    """'GuideLLM' for ``guidellm``: the name an imported journal's tool goes by."""
    return IMPORTED_TOOLS.get(tool, tool)


def content_ttft_sentence(analysis: Analysis) -> str:
    """What the pages say of the two first-token times; an imported client that does not tell them apart
    is named, since its journals hold no visible-content TTFT."""
    text = (
        "Visible-content TTFT (first visible content token) is distinct from TTFT (first reasoning-or-content "
        "token); both are retained in the native journals."
    )
    lacking = sorted(
        {tool_name(a.imported.tool) for t in analysis.trials for a in t.arms if a.imported is not None and "content-ttft" in a.imported.not_recorded}
    )
    if lacking:
        text += f" Imported from {' and '.join(lacking)}, which times only the first token: visible-content TTFT is absent there, not zero."
    return text


def imported_sentence(tool: str, versions: list[str], not_recorded: list[str]) -> str:
    """'Imported from GuideLLM 0.8.1: no counter reconciliation, no functional gates, ...'."""
    name = tool_name(tool)
    named = f"{name} {', '.join(versions)}" if versions else f"{name} (its files record no version)"
    limits = ", ".join(NOT_RECORDED_WORDS.get(item, item) for item in not_recorded)
    percentiles = f" {PERCENTILE_WORDS[tool]}." if tool in PERCENTILE_WORDS else ""
    return (
        f"Imported from {named}: {limits or 'nothing missing'}. These times are the client's own, as it "
        f"recorded them; what it did not record is absent, never filled in.{percentiles}"
    )


def _imported_finding(finding: Finding) -> str:
    assert isinstance(finding, ImportedFinding)
    return imported_sentence(finding.values.tool, finding.values.versions, finding.values.not_recorded)


def _incomplete_finding(finding: Finding) -> str:
    assert isinstance(finding, IncompleteFinding)
    arm = finding.values
    if len(arm.groups) == arm.groups_total:
        missing = f"completed none of its {arm.planned} planned timed requests, so no group has a comparison"
    else:
        missing = f"completed no timed request in {len(arm.groups)} of {arm.groups_total} groups ({', '.join(arm.groups)}), which have no comparison"
    return f"The trial is incomplete: the {_arm(arm)} arm {missing}. The candidate cannot be promoted."


# Sentences of trial-level findings, by kind (the others are worded in finding_sentence).
_TRIAL_SENTENCES = {"imported": _imported_finding, "incomplete": _incomplete_finding}


def finding_sentence(finding: Finding, candidate: str, threshold_pct: float | None = None, level: str = "run-level") -> str:
    """One sentence per finding, naming the group. Given the rule's threshold, a split verdict's
    improvements never round onto or across it (``only 10.00%`` for a 9.996% that did not clear).
    ``level`` names the intervals (``interval_level``: launch-level under statistics v4)."""
    g = finding.group
    if finding.kind == "win":
        v = finding.values
        return (
            f"At {g} the {candidate} was {percent(v.improvement_vs_before_pct)} faster than the first control "
            f"and {percent(v.improvement_vs_restored_pct)} faster than the restored control: a win under the rule."
        )
    if finding.kind == "win-within-noise":
        noisy = finding.values
        reasons = []
        if noisy.controls:
            reasons.append(f"the {level} 95% interval against the {_controls(noisy.controls)} includes no change")
        if noisy.undrawn:
            reasons.append(f"no {level} interval against the {_controls(noisy.undrawn)} could be drawn (fewer than two runs with values in an arm)")
        return (
            f"At {g} the {candidate} was {percent(noisy.improvement_vs_before_pct)} and "
            f"{percent(noisy.improvement_vs_restored_pct)} faster than the two controls, but {' and '.join(reasons)}: "
            "a difference of this size is within the noise of this data."
        )
    if finding.kind == "guardrail-breached":
        breach = finding.values
        noise = " (an interval includes no change: the breach may be noise, and still blocks)" if breach.within_noise else ""
        what = f"{breach.statistic} {METRIC_NAMES.get(breach.metric, breach.metric)}"
        return (
            f"At {g} the guardrail '{guardrail_text(GuardrailRule(**breach.model_dump(exclude=_MEASURED)))}' "
            f"is breached: the {candidate}'s {what} was {higher_lower(breach.change_vs_before_pct)} than the first "
            f"control and {higher_lower(breach.change_vs_restored_pct)} than the restored control{noise}. The candidate "
            "cannot be promoted."
        )
    if finding.kind == "split-verdict":
        v = finding.values
        sides = sorted(
            [("the first control", v.improvement_vs_before_pct), ("the restored control", v.improvement_vs_restored_pct)],
            key=lambda side: -(side[1] or 0),
        )
        (strong_name, strong), (weak_name, weak) = sides
        shown = percent(weak) if weak is None else percent_beside(weak, threshold_pct)
        weak_text = f"only {shown}" if (weak or 0) >= 0 else _improved(weak)
        return (
            f"The {g} result {_improved(strong, threshold_pct)} against {strong_name} but {weak_text} against {weak_name}. "
            "It therefore fails the predeclared requirement to improve against both."
        )
    if finding.kind == "regression":
        return (
            f"At {g} the {candidate} was {faster_slower(finding.values.change_vs_before_pct)} than the first control "
            f"and {faster_slower(finding.values.change_vs_restored_pct)} than the restored control."
        )
    if finding.kind == "control-drift":
        return (
            f"At {g} the two controls disagree: the restored original was {faster_slower(finding.values.drift_pct)} "
            "than the original before, at least the rule's threshold, so this row cannot be decided cleanly."
        )
    if finding.kind in _TRIAL_SENTENCES:
        return _TRIAL_SENTENCES[finding.kind](finding)
    if finding.kind == "failures":
        return f"{finding.values.count} timed request(s) failed; they are listed with their reasons and enter no statistic."
    if finding.kind == "unreconciled":
        return f"{finding.values.count} run(s) did not reconcile the engine's counters with the client's sums."
    if finding.kind == "not-reconcilable":
        runs = finding.values
        why = not_reconcilable_why(runs.count, runs.without_counters, "request or token counters")
        return f"{runs.count} run(s) are not reconcilable: {why}, so the client's request and token sums were not checked against the engine's."
    if finding.kind == "timing-gap":
        gap = finding.values
        name = TIMING_NAMES[gap.metric]
        return (
            f"In the {_arm(gap)} arm, {gap.runs} run(s) had a mean client {name} that differs from the engine's "
            f"own by more than the declared {gap.bound_ms:g} ms (largest "
            f"{milliseconds(gap.largest_gap_ms, gap.bound_ms)}): the client's times are not what the engine saw. "
            "The candidate cannot be promoted."
        )
    if finding.kind == "timing-unchecked":
        unchecked = finding.values
        parts = [f"{n} {words}" for n, words in ((unchecked.not_comparable, "not comparable"), (unchecked.not_reconcilable, "not reconcilable")) if n]
        return (
            f"In the {_arm(unchecked)} arm, the declared {unchecked.bound_ms:g} ms timing bound could not be "
            f"checked on the {TIMING_NAMES[unchecked.metric]} of {unchecked.runs} of {unchecked.runs_total} "
            f"run(s) ({', '.join(parts)}): it is not shown to hold. The candidate cannot be promoted."
        )
    if finding.kind == "gate-failed":
        return f"The {finding.values.gate} gate failed in the {_arm(finding.values)} arm."
    if finding.kind == "check-failed":
        return f"The {finding.values.check} check failed in the {_arm(finding.values)} arm."
    if finding.kind == "check-warning":
        return f"Warning: the {finding.values.check} check did not pass in the {_arm(finding.values)} arm (shown, not failing the arm)."
    if finding.kind == "telemetry-mismatch":
        return (
            f"The {_arm(finding.values)} journal's footer records a telemetry summary that its own samples do not "
            f"give ({finding.values.fields}); the pages show the figures recomputed from the samples."
        )
    if finding.kind == "few-repetitions":
        few = finding.values
        return (
            f"The rule ({few.confidence}) reads the run-level intervals, and an arm holds only {few.runs} run(s) of a "
            f"group: a run-level interval needs at least {few.advised} runs per arm (from {few.advised} it held the true "
            "change in 93-97% of synthetic trials), so none could be drawn there and the rule cannot call that group "
            "a win. Plan the repetitions with evidence-kit power."
        )
    if finding.kind == "client-saturated":
        run = finding.values
        over = "; ".join(_exceedance_text(e) for e in run.exceeded)
        return (
            f"The client may have been the bottleneck in run {run.run} of the {_arm(run)} arm: {over}. Its "
            "timings may be inflated, so the trial cannot promote; rerun with more client capacity (fewer "
            "concurrent requests per collector, a less loaded machine) or declare the bounds the setup needs."
        )
    if finding.kind == "slots-not-restored":
        return (
            f"Engine-reported token slots did not return to the original value after restoration "
            f"({count(finding.values.original)} before, {count(finding.values.restored)} restored)."
        )
    raise ValueError(f"no sentence for finding kind {finding.kind!r}")


_MEASURED = {"change_vs_before_pct", "change_vs_restored_pct", "within_noise"}


_BOUND_WORDS = {
    "loop-lag": "event-loop lag reached",
    "loop-lag-p50": "the median event-loop lag was",
    "send-wait": "a request waited in the client",
    "loop-cpu": "the event loop's thread used",
    "arrival-rate": "the achieved arrival rate fell short of its schedule by",
}
_SHARES = ("loop-cpu", "arrival-rate")  # bounds stored as fractions


def _client_value(bound: str, value: float) -> str:
    """'0.512 s', for the CPU share '97.00% of one core', for a rate shortfall '3.00%' (shares are stored as
    fractions)."""
    if bound == "arrival-rate":
        return f"{value * 100:.2f}%"
    return f"{value * 100:.2f}% of one core" if bound == "loop-cpu" else f"{seconds(value)} s"


def _exceedance_text(e: ClientExceedance) -> str:
    """'event-loop lag reached 0.512 s, 156.00% over the 0.2 s bound'."""
    limit = f"{e.limit * 100:g}%" if e.bound in _SHARES else f"{e.limit:g} s"
    over = "far" if e.over_pct is None else percent(e.over_pct)  # null: a ratio that overflows
    return f"{_BOUND_WORDS[e.bound]} {_client_value(e.bound, e.value)}, {over} over the {limit} bound"


def client_health_sentence(trial: TrialAnalysis) -> str:
    """The client's health over the trial's runs, against its declared bounds; 'not recorded' for journals
    that predate it."""
    b = trial.client_bounds
    bounds = (
        f"event-loop lag at most {b.max_loop_lag_s:g} s (median {b.max_loop_lag_p50_s:g} s), send wait at most "
        f"{b.max_send_wait_s:g} s, loop CPU at most {b.max_cpu_share * 100:g}% of one core"
    )
    if any(r.rate is not None for r in trial.runs):
        bounds += (
            f", the achieved arrival rate at most {b.rate_shortfall * 100:g}% below its schedule's (send wait counted from each request's due time)"
        )
    recorded, total = trial.client_runs_recorded, trial.runs_total
    if recorded == 0:
        if any(a.imported is not None for a in trial.arms):
            return "not recorded (imported from a client that does not record it), so not checked"
        return "not recorded (the run records predate it), so not checked"
    scope = f"{recorded}/{total} runs" + ("" if recorded == total else " (not recorded in the others, not checked)")
    if trial.client_runs_saturated:
        return f"bounds exceeded in {trial.client_runs_saturated} of {scope} ({bounds}); the runs are named below"
    unjudged = sum(r.client is not None and bool(r.client.unjudged) for r in trial.runs)
    if unjudged:
        return f"could not be judged in {unjudged} of {scope} ({bounds}); promotion is blocked"
    return f"within the declared bounds in {scope} ({bounds})"


def _arm(values: ArmGate | ArmCheck | ArmIncomplete | TelemetryFields | ArmTimingGap | ArmTimingUnchecked | ClientSaturation) -> str:
    """'candidate', or 'candidate 2' where the phase has several arms (as the tables name them)."""
    return values.phase if values.block is None else f"{values.phase} {values.block}"


def _controls(names: str) -> str:
    """'before, restored' -> 'first and restored controls'."""
    words = {"before": "first", "restored": "restored"}
    parts = [words.get(n.strip(), n.strip()) for n in names.split(",") if n.strip()]
    return " and ".join(parts) + (" controls" if len(parts) > 1 else " control")


def _improved(improvement_pct: object, threshold_pct: float | None = None) -> str:
    value = float(improvement_pct)  # type: ignore[arg-type]
    return f"improved {percent_beside(value, threshold_pct)}" if value >= 0 else f"worsened {percent(value)}"


def slots_sentence(trial: TrialAnalysis) -> str:
    """'1,330,579 to 1,844,162 (+38.60%); restored to 1,330,579'."""
    s = trial.slots
    text = f"{count(s.original)} to {count(s.candidate)} ({signed_percent(s.change_pct)})"
    if s.restored is not None:
        text += f"; {count(s.restored)} after restoration"
        if s.restored_matches_original:
            text += " (the original value)"
    return text


def requests_sentence(trial: TrialAnalysis) -> str:
    """'144/144 (before 48/48, candidate 48/48, restored 48/48); no request failures'."""
    phases = arm_phases(trial)
    parts = ", ".join(f"{phases[a.seq]} {a.timed_ok}/{a.timed_planned}" for a in trial.arms)
    return f"{trial.timed_ok}/{trial.timed_planned} ({parts}); {failures_text(trial)}"


def failures_text(trial: TrialAnalysis) -> str:
    """'no request failures', or '2 failed requests'."""
    return f"{trial.timed_failed} failed requests" if trial.timed_failed else "no request failures"


def outcome_sentence(outcome: str) -> str:
    """The outcome as the decision says it: 'no-promotion; retain the original configuration'."""
    return "promote the candidate" if outcome == "promote" else "no-promotion; retain the original configuration"


def gates_sentence(trial: TrialAnalysis) -> str:
    """'before 6/6, candidate 6/6, restored 12/12': gates passed per arm."""
    phases = arm_phases(trial)
    return ", ".join(f"{phases[a.seq]} {a.gates_passed}/{a.gates_total}" for a in trial.arms)


def wins_text(trial: TrialAnalysis) -> str:
    """'0/4 workload groups'."""
    return f"{trial.wins}/{trial.groups_total} workload groups"


def wins_sentence(trial: TrialAnalysis) -> str:
    """'Material latency wins: 0/4 workload groups. Trial outcome: no-promotion; …'."""
    return f"Material latency wins: {wins_text(trial)}. Trial outcome: {outcome_sentence(trial.outcome)}."


def simulated_sentence(analysis: Analysis) -> str:
    """The warning every page of a decision with a simulated trial carries, naming those trials."""
    names = ", ".join(t.title for t in analysis.trials if t.simulated)
    return (
        f"Simulated evidence: {names} ran on a simulated engine (engine_kind simulated). Its numbers describe "
        "the simulator, not measurements of real hardware."
    )


def design_sentence(trial: TrialAnalysis) -> str:
    """How the arms ran, when not the default (A/B/A in plan order); '' for the default."""
    parts = []
    if trial.design != "A/B/A":
        candidates = sum(a.role == "candidate" for a in trial.arms)
        controls = len(trial.arms) - candidates
        parts.append(
            f"Design {trial.design}: {controls} blocks of the original and {candidates} of the candidate, "
            "alternating. The rule compares the candidate, pooled over its blocks, with the first and the last "
            "original block; the design table also fits a line through every original block's median over the "
            "arms' positions (the control's drift) and compares the candidate with that line where the candidate "
            "ran, and with each original block."
        )
    if trial.order == "randomised":
        parts.append(
            "Each repetition ran the workload groups in an order shuffled from the plan's seed, the "
            "same in every arm and recorded in trial.json; the journals were checked against it."
        )
    return " ".join(parts)
