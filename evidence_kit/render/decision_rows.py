"""What a decision page says, as rows of text: formatting and selection, never arithmetic.

Each function reads figures off the :class:`~evidence_kit.analyze.report.Analysis`
and words them with :mod:`evidence_kit.format` and :mod:`evidence_kit.wording`, the
same code the terminal report and the auditor use. Strings here are untrusted
where they carry evidence or prose; the templates escape every one of them.
"""

from __future__ import annotations

import re

from ..analyze.report import Analysis, TrialAnalysis
from ..format import count, faster_slower, ratio, seconds, signed_percent, tokens
from ..model import PHASES, Decision, Receipt
from ..model.evidence import DecisionEvidence
from ..wording import outcome_sentence, rule_sentence
from .evidence_copy import withheld_classes

__all__ = [
    "ENGINE_KINDS",
    "SETUP_ORDER",
    "setup_rows",
    "headline_rows",
    "metric_table",
    "comparison_table",
    "input_ranges",
    "pooled_sizes",
    "restored_ok",
    "prose_sections",
    "NARRATIVE_PLACED",
]

ENGINE_KINDS = {
    "vllm": "vLLM engine (measured)",
    "openai-compatible": "OpenAI-compatible engine (measured)",
    "simulated": "SIMULATED engine: numbers describe the simulator, not real hardware",
}
SETUP_ORDER = ("model", "hardware", "runtime", "recipe", "measurement_path", "workload", "evidence")
NARRATIVE_PLACED = ("summary", "why_it_matters", "caveat", "limits", "what_remains")
METRIC_FORMAT = {"e2e_s": seconds, "ttft_s": seconds, "ttft_content_s": seconds, "completion_tokens": tokens}


def _title(key: str) -> str:
    return key.replace("_", " ").replace("-", " ").strip().capitalize() or key


def _same_or_each(values: list[str], suffix: str = " in each trial") -> list[str]:
    """One value when every trial says the same, else one per trial."""
    return [values[0] + (suffix if len(values) > 1 else "")] if len(set(values)) == 1 else values


def input_ranges(trial: TrialAnalysis) -> list[tuple[str, str, str]]:
    """(nominal, label, 'min–max' actual tokens) per input size, in plan order."""
    seen: dict[int, tuple[str, str, str]] = {}
    for g in trial.groups:
        if g.input_nominal not in seen:
            span = f"{count(g.input_tokens_min)}–{count(g.input_tokens_max)}"
            seen[g.input_nominal] = (count(g.input_nominal), g.input_label, span)
    return list(seen.values())


def pooled_sizes(trial: TrialAnalysis) -> str:
    """How many request timings each pooled table entry holds ('12', or '11 to 12')."""
    sizes = sorted({p.n for g in trial.groups for p in g.pooled[str(trial.rule["metric"])].values()})
    return str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"


def restored_ok(trial: TrialAnalysis) -> bool:
    """Restoration held: the restored arm's gates and checks passed and slots returned."""
    restored = next(a for a in trial.arms if a.phase == "restored")
    return (
        restored.gates_passed == restored.gates_total
        and all(restored.checks.values())
        and trial.slots.restored_matches_original is not False
    )


def _workload_text(evidence: DecisionEvidence, analysis: Analysis) -> list[str]:
    texts = []
    for trial_ev, trial in zip(evidence.trials, analysis.trials):
        w = trial_ev.trial.workload
        ranges = " and ".join(f"{span}" for _, _, span in input_ranges(trial))
        texts.append(
            f"{'/'.join(label for _, label, _ in input_ranges(trial))} actual input tokens ({ranges}), "
            f"concurrency {'/'.join(str(c) for c in w.concurrency)}, temperature {w.temperature:g}, "
            f"{count(w.max_tokens)}-token output cap"
        )
    return _same_or_each(texts, "")


def setup_rows(evidence: DecisionEvidence, analysis: Analysis, receipts: dict[str, Receipt | None]) -> list[tuple[str, str]]:
    """'Setup | Recorded value': the operator's ``[setup]`` plus rows computed from the evidence."""
    decision: Decision = evidence.decision
    # "Measurement path", "measurement-path" and "measurement_path" are one row.
    setup = {re.sub(r"[\s-]+", "_", key.strip().lower()): value for key, value in decision.setup.items()}
    rows: list[tuple[str, str]] = []
    withheld = withheld_classes(receipts)
    if "model" not in setup:
        if withheld:
            setup["model"] = "Withheld by redaction (classes withheld: " + ", ".join(withheld) + ")"
        else:
            setup["model"] = "Not recorded in decision.toml"
    if "workload" not in setup:
        setup["workload"] = "; ".join(_workload_text(evidence, analysis))
    for key in SETUP_ORDER:
        if key in setup:
            rows.append((_title(key), setup.pop(key)))
    operator_decision = setup.pop("decision", None)
    for key in sorted(setup):
        rows.append((_title(key), setup[key]))
    kinds = _same_or_each([ENGINE_KINDS[t.engine_kind] for t in analysis.trials], "")
    rows.append(("Evidence kind", "; ".join(kinds)))
    promoted = ", ".join(analysis.decision.promoted) or "no candidate promoted"
    rows.append(("Decision", f"{outcome_sentence(analysis.decision.outcome)} ({promoted}; computed from the predeclared rules)"))
    if operator_decision:
        rows.append(("Decision note (operator)", operator_decision))
    return rows


def _split_text(trial: TrialAnalysis) -> str:
    """'48 before, 48 candidate, 48 restored; no request failures'."""
    split = ", ".join(f"{a.timed_ok} {a.phase}" for a in trial.arms)
    failed = "no request failures" if not trial.failures else f"{len(trial.failures)} failed requests"
    return f"{split}; {failed}"


def headline_rows(analysis: Analysis) -> list[tuple[str, str, str]]:
    """'Headline measurement | Local result | Conditions'."""
    trials = analysis.trials
    rows: list[tuple[str, str, str]] = []
    done = _same_or_each([f"{t.timed_ok}/{t.timed_planned}" for t in trials])
    conditions = _same_or_each([_split_text(t) for t in trials], "")
    rows.append(("Timed requests completed", "; ".join(done), "; ".join(conditions)))
    wins = _same_or_each([f"{t.wins}/{len(t.groups)} workload groups" for t in trials])
    rules = _same_or_each([rule_sentence(t) for t in trials], "")
    rows.append(("Material latency wins", "; ".join(wins), " ".join(rules)))
    for t in trials:
        s = t.slots
        if s.change_pct is None:
            continue
        rows.append(
            (f"{t.candidate_label} token slots", signed_percent(s.change_pct),
             f"engine-reported KV token slots, {count(s.original)} to {count(s.candidate)}")
        )
    restored = [t.trial_id for t in trials if restored_ok(t)]
    if len(restored) == len(trials):
        result = "Both trials" if len(trials) == 2 else ("The trial" if len(trials) == 1 else "Every trial")
    else:
        result = ", ".join(restored) if restored else "Not shown by the evidence"
    rows.append(
        ("Original configuration restored", result,
         "restored arm's gates and lifecycle checks passed and its KV token slots matched the original")
    )
    return rows


def metric_table(trial: TrialAnalysis, metric: str) -> list[list[str]]:
    """Rows of a pooled-median table: input label, concurrency, before, candidate, restored."""
    fmt = METRIC_FORMAT[metric]
    return [
        [g.input_label, str(g.concurrency)] + [fmt(g.pooled[metric][p].median) for p in PHASES]
        for g in trial.groups
    ]


def comparison_table(trial: TrialAnalysis) -> list[list[str]]:
    """The decision metric against each control, its bootstrap intervals and the verdict, per group."""
    metric = str(trial.rule["metric"])
    rows = []
    for g in trial.groups:
        cells = [g.label] + [faster_slower(c.change_pct) for c in g.comparisons[metric]]
        for iv in g.intervals:
            text = f"{ratio(iv.low)}–{ratio(iv.high)}"
            cells.append(text if iv.resolvable else text + " (n.s.)")
        cells.append("yes" if g.verdict.win else "no")
        rows.append(cells)
    return rows


def prose_sections(decision: Decision) -> list[tuple[str, str]]:
    """Narrative keys the page does not place by name, as (heading, prose), sorted by key."""
    return [(_title(k), v) for k, v in sorted(decision.narrative.items()) if k not in NARRATIVE_PLACED]
