"""The analysis as plain-text tables for the terminal (``evidence-kit analyze``)."""

from __future__ import annotations

from typing import Sequence

from .analyze.report import Analysis, GroupResult, TrialAnalysis
from .format import count, faster_slower, ratio, seconds, tokens
from .model import PHASES
from .wording import finding_sentence, outcome_sentence, requests_sentence, rule_sentence, slots_sentence

__all__ = ["render_text", "table"]

METRIC_TITLES = {
    "e2e_s": "Median end-to-end seconds; lower is better.",
    "ttft_s": "Median time to first token (reasoning or content), seconds.",
    "ttft_content_s": "Median time to first visible content token, seconds.",
    "completion_tokens": "Median output (completion) tokens.",
}


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown-style pipe table, padded so it also reads well in a terminal."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    return [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *(line(r) for r in rows)]


def _metric_table(trial: TrialAnalysis, metric: str) -> list[str]:
    fmt = tokens if metric == "completion_tokens" else seconds
    headers = ["Actual input", "Concurrency", "Original before", trial.candidate_label, "Original restored"]
    decisive = metric == trial.rule["metric"]
    if decisive:
        headers += ["vs before", "vs restored", "95% CI ratio vs before", "95% CI ratio vs restored", "Win"]
    rows = []
    for g in trial.groups:
        cells = [g.input_label, str(g.concurrency)] + [fmt(g.pooled[metric][p].median) for p in PHASES]
        if decisive:
            cells += [faster_slower(c.change_pct) for c in g.comparisons[metric]]
            cells += [_interval(g, i) for i in range(2)]
            cells.append("yes" if g.verdict.win else "no")
        rows.append(cells)
    return [METRIC_TITLES[metric], *table(headers, rows)]


def _interval(group: GroupResult, i: int) -> str:
    iv = group.intervals[i]
    text = f"{ratio(iv.low)}–{ratio(iv.high)}"
    return text if iv.resolvable else text + " (n.s.)"


def _trial_text(trial: TrialAnalysis) -> list[str]:
    label = " [SIMULATED — not a measurement of real hardware]" if trial.simulated else ""
    out = [f"## {trial.title} ({trial.trial_id}){label}", ""]
    out.append(f"Rule: {rule_sentence(trial)}")
    out.append(f"Timed requests completed: {requests_sentence(trial)}")
    out.append(f"Runs reconciled: {trial.runs_reconciled}/{trial.runs_total}")
    gates = [(a.phase, a.gates_passed, a.gates_total) for a in trial.arms]
    out.append("Gates passed: " + ", ".join(f"{p} {k}/{n}" for p, k, n in gates))
    out.append(f"KV token slots: {slots_sentence(trial)}")
    out.append("")
    for metric in METRIC_TITLES:
        out += _metric_table(trial, metric) + [""]
    out.append(
        f"Material latency wins: {trial.wins}/{len(trial.groups)} workload groups. "
        f"Trial outcome: {outcome_sentence(trial.outcome)}."
    )
    for reason in trial.blocked_by:
        out.append(f"Cannot promote: {reason}.")
    for finding in trial.findings:
        out.append(f"- {finding_sentence(finding, trial.candidate_label)}")
    for failure in trial.failures:
        out.append(f"  failed: {failure.phase} {failure.run} #{failure.index}: {failure.error}")
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
    timed_ok = sum(t.timed_ok for t in analysis.trials)
    timed_planned = sum(t.timed_planned for t in analysis.trials)
    promoted = ", ".join(d.promoted) if d.promoted else "none"
    out.append(
        f"Outcome: {d.outcome} (promoted: {promoted}); timed requests {count(timed_ok)}/{count(timed_planned)} "
        f"across {len(analysis.trials)} trial(s)."
    )
    return "\n".join(out) + "\n"
