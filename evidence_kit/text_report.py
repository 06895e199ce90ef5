"""The analysis as plain-text tables for the terminal (``evidence-kit analyze``).

The rows and sentences are the pages' own (:mod:`evidence_kit.present`); only the
layout is the terminal's: padded pipe tables, the decision metric's comparisons
beside its medians.
"""

from __future__ import annotations

from collections.abc import Sequence

from .analyze.collected import CollectedArm
from .analyze.report import Analysis, TrialAnalysis
from .present import (
    GUARDRAIL_HEADERS,
    GUARDRAIL_TITLE,
    METRIC_TITLES,
    TAIL_HEADERS,
    arm_phases,
    cache_hit_headers,
    cache_hit_rows,
    cache_hit_title,
    client_health_sentence,
    comparison_cells,
    comparison_headers,
    count,
    design_headers,
    design_rows,
    design_sentence,
    design_title,
    detectable_sentence,
    finding_sentence,
    gates_sentence,
    guardrail_rows,
    interval_level,
    load_headers,
    load_rows,
    load_title,
    metric_headers,
    metric_rows,
    outcome_sentence,
    reconciled_text,
    requests_sentence,
    rule_sentence,
    seconds,
    slots_sentence,
    tail_rows,
    tail_title,
    timing_sentences,
    turn_headers,
    turn_rows,
    turn_title,
    verdict_definitions,
    verdicts_text,
    wins_sentence,
)

__all__ = ["render_text", "table", "collected_text"]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown-style pipe table, padded so it also reads well in a terminal."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    return [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *(line(r) for r in rows)]


def _metric_table(trial: TrialAnalysis, metric: str) -> list[str]:
    """A pooled-median table; the decision metric's carries its comparisons, intervals and wins."""
    headers, rows = metric_headers(trial), metric_rows(trial, metric)
    if metric == trial.rule.metric:
        headers += comparison_headers(trial)
        rows = [row + comparison_cells(trial, g) for row, g in zip(rows, trial.groups)]
    return [METRIC_TITLES[metric], *table(headers, rows)]


def _verdict_meanings(trial: TrialAnalysis) -> list[str]:
    """Statistics v4: what each verdict word means, beside the verdicts (none under v3, whose output is as it was)."""
    if trial.rule.statistics != 4:
        return []
    return ["Verdicts, the first that applies:", *(f"- {line}" for line in verdict_definitions(trial)), ""]


def _trial_text(trial: TrialAnalysis) -> list[str]:
    label = " [SIMULATED — not a measurement of real hardware]" if trial.simulated else ""
    out = [f"## {trial.title} ({trial.trial_id}){label}", ""]
    out.append(f"Rule: {rule_sentence(trial)}")
    out.append(f"Timed requests completed: {requests_sentence(trial)}")
    out.append(f"Runs reconciled: {reconciled_text(trial)}")
    out.append(f"Gates passed: {gates_sentence(trial)}")
    out.append(f"Client health: {client_health_sentence(trial)}")
    out.append(f"KV token slots: {slots_sentence(trial)}")
    out += timing_sentences(trial)
    out.append("")
    if design_sentence(trial):
        out += [design_sentence(trial), ""]
    for metric in METRIC_TITLES:
        out += _metric_table(trial, metric) + [""]
        if metric == trial.rule.metric:  # its resolution, tails and guardrails beside it
            out += [detectable_sentence(trial), "", *_verdict_meanings(trial), tail_title(trial), *table(TAIL_HEADERS, tail_rows(trial)), ""]
            if trial.rule.guardrails:
                out += [GUARDRAIL_TITLE, *table(GUARDRAIL_HEADERS, guardrail_rows(trial)), ""]
            hits = cache_hit_title(trial)
            if hits:  # the hit rates beside the latencies they explain
                out += [hits, *table(cache_hit_headers(trial), cache_hit_rows(trial)), ""]
            turns = turn_title(trial)
            if turns:  # a multi-turn trial's times turn by turn
                out += [turns, *table(turn_headers(trial), turn_rows(trial)), ""]
    loads = load_rows(trial)
    if loads:
        headers = load_headers(trial)
        if trial.rule.metric == "goodput":  # the decision metric's table carries its comparisons
            headers += comparison_headers(trial)
            loads = [row + comparison_cells(trial, g) for row, g in zip(loads, trial.groups)]
        out += [load_title(trial), *table(headers, loads), ""]
        if trial.rule.metric == "goodput":
            out += [detectable_sentence(trial), ""]
            if trial.rule.guardrails:
                out += [GUARDRAIL_TITLE, *table(GUARDRAIL_HEADERS, guardrail_rows(trial)), ""]
    if trial.design != "A/B/A":
        out += [design_title(trial), *table(design_headers(trial), design_rows(trial)), ""]
    out.append(wins_sentence(trial))
    out.append(f"Group verdicts: {verdicts_text(trial)}.")
    for reason in trial.blocked_by:
        out.append(f"Cannot promote: {reason}.")
    for finding in trial.findings:
        out.append(f"- {finding_sentence(finding, trial.candidate_label, trial.rule.min_improvement_pct, interval_level(trial))}")
    for failure in trial.failures:
        out.append(f"  failed: {arm_phases(trial)[failure.seq]} {failure.run} #{failure.index}: {failure.error}")
    out.append("")
    return out


def render_text(analysis: Analysis) -> str:
    """The whole analysis as text: decision line, then each trial's tables and findings."""
    d = analysis.decision
    out: list[str] = []
    if d.title:
        out += [f"# {d.title}", f"Date: {d.date}. Decision: {outcome_sentence(d.outcome)}.", ""]
    for trial in analysis.trials:
        out += _trial_text(trial)
    promoted = ", ".join(d.promoted) if d.promoted else "none"
    out.append(
        f"Outcome: {d.outcome} (promoted: {promoted}); timed requests {count(d.timed_ok)}/{count(d.timed_planned)} across {len(d.trials)} trial(s)."
    )
    return "\n".join(out) + "\n"


COLLECTED_HEADERS = ["Arm", "Timed ok", "Failed", "Median E2E s", "p90 E2E s", "Median TTFT s", "p90 TTFT s"]


def collected_text(arms: Sequence[CollectedArm]) -> list[str]:
    """What ``collect`` ends with: each arm's timed requests and latencies, and the checks that warned."""
    rows = [
        [
            f"{a.seq:02d} {a.arm} ({a.phase})",
            f"{count(a.ok)}/{count(a.planned)}",
            count(a.failed),
            seconds(a.e2e.median),
            seconds(a.e2e.p90),
            seconds(a.ttft.median),
            seconds(a.ttft.p90),
        ]
        for a in arms
    ]
    out = ["Timed requests per arm, every group pooled (per group, with the verdict: evidence-kit analyze):", *table(COLLECTED_HEADERS, rows)]
    out += [f"warning: {a.seq:02d} {a.arm} ({a.phase}): check {name} did not pass (recorded; the arm stands)" for a in arms for name in a.warnings]
    return out
