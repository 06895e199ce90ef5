"""What a decision page says beyond the trial tables, as rows of text: the result card
(setup and headline rows), the input ranges and pooled sizes of the method, the
operator's other prose. Selection and formatting, never arithmetic or a verdict.

Each function reads figures and verdicts off the :class:`~evidence_kit.analyze.report.Analysis`
(``restored_ok``, ``pooled_n_min``…) and words them with :mod:`.format` and
:mod:`.wording`, the code the terminal report uses too. Strings here are untrusted
where they carry evidence or prose; the templates escape every one of them.
"""

from __future__ import annotations

import re

from ..analyze.report import Analysis, DecisionSummary, TrialAnalysis
from ..model import Decision, Workload
from ..model.evidence import DecisionEvidence, TrialEvidence
from .arms import arm_phases
from .format import count, signed_percent
from .verdict_meanings import SMALLEST_CHANGE_MEANING, error_rates_text, is_v4, smallest_change_text
from .wording import failures_text, outcome_sentence, rule_sentence, verdicts_text, wins_text

__all__ = [
    "ENGINE_KINDS",
    "SETUP_ORDER",
    "setup_rows",
    "trial_card_rows",
    "workload_text",
    "input_ranges",
    "pooled_sizes",
    "prose_sections",
    "load_words",
    "workload_settings",
    "NARRATIVE_PLACED",
]

ENGINE_KINDS = {
    "vllm": "vLLM engine (measured)",
    "sglang": "SGLang engine (measured)",
    "llama.cpp": "llama.cpp server (measured)",
    "openai-compatible": "OpenAI-compatible engine (measured)",
    "simulated": "SIMULATED engine: numbers describe the simulator, not real hardware",
}
SETUP_ORDER = ("model", "hardware", "runtime", "recipe", "measurement_path", "workload", "evidence")
NARRATIVE_PLACED = ("summary", "why_it_matters", "caveat", "limits", "what_remains")


def _title(key: str) -> str:
    return key.replace("_", " ").replace("-", " ").strip().capitalize() or key


def input_ranges(trial: TrialAnalysis) -> list[tuple[str, str, str]]:
    """(nominal, label, 'min–max' actual tokens) per input size, in plan order."""
    seen: dict[int, tuple[str, str, str]] = {}
    for g in trial.groups:
        if g.input_nominal not in seen:
            span = f"{count(g.input_tokens_min)}–{count(g.input_tokens_max)}"
            seen[g.input_nominal] = (count(g.input_nominal), g.input_label, span)
    return list(seen.values())


def pooled_sizes(summary: DecisionSummary | TrialAnalysis) -> str:
    """How many request timings each pooled table entry holds ('12', or '11 to 12')."""
    low, high = summary.pooled_n_min, summary.pooled_n_max
    return str(low) if low == high else f"{low} to {high}"


def workload_settings(w: Workload) -> str:
    """'temperature 0, 256-token output cap', or 'not recorded' for what an imported client's files lack."""
    return (
        ("temperature not recorded" if w.temperature is None else f"temperature {w.temperature:g}")
        + ", "
        + ("output cap not recorded" if w.max_tokens is None else f"{count(w.max_tokens)}-token output cap")
    )


def workload_text(evidence: TrialEvidence, trial: TrialAnalysis) -> tuple[str, str]:
    """('~1K/~4K input, concurrency 1/4', '1,003–1,062 and 4,031–4,165 actual input tokens, temperature 0, 256-token output cap')."""
    w = evidence.trial.workload
    ranges = " and ".join(span for _, _, span in input_ranges(trial))
    labels = "/".join(label for _, label, _ in input_ranges(trial))
    return f"{labels} input, {load_words(w)}", f"{ranges} actual input tokens, {workload_settings(w)}"


def load_words(w: Workload, sep: str = "/") -> str:
    """'concurrency 1/4' ('concurrency 4 conversations of 3 turns', multi-turn), or 'poisson arrivals at
    2.0/8.0 requests per second (at most 64 in flight)'."""
    if w.rate is None:
        conversations = f" conversations of {w.turns} turns" if w.turns else ""
        return f"concurrency {sep.join(str(c) for c in w.concurrency or [])}{conversations}"
    cap = f" (at most {w.max_in_flight} in flight)" if w.max_in_flight else ""
    return f"{w.arrival} arrivals at {sep.join(repr(r) for r in w.rate)} requests per second{cap}"


def setup_rows(evidence: DecisionEvidence, analysis: Analysis, withheld: list[str]) -> list[tuple[str, str]]:
    """'Setup | Recorded value': the operator's ``[setup]`` plus rows from the evidence; ``withheld``
    names the classes of identity the redaction receipts say were replaced."""
    decision: Decision = evidence.decision
    # "Measurement path", "measurement-path" and "measurement_path" are one row.
    setup = {re.sub(r"[\s-]+", "_", key.strip().lower()): value for key, value in decision.setup.items()}
    rows: list[tuple[str, str]] = []
    if "model" not in setup:
        if withheld:
            setup["model"] = "Withheld by redaction (classes withheld: " + ", ".join(withheld) + ")"
        else:
            setup["model"] = "Not recorded in decision.toml"
    for key in SETUP_ORDER:
        if key in setup:
            rows.append((_title(key), setup.pop(key)))
    operator_decision = setup.pop("decision", None)
    for key in sorted(setup):
        rows.append((_title(key), setup[key]))
    promoted = ", ".join(analysis.decision.promoted) or "no candidate promoted"
    rows.append(("Decision", f"{outcome_sentence(analysis.decision.outcome)} ({promoted}; computed from the predeclared rules)"))
    if operator_decision:
        rows.append(("Decision note (operator)", operator_decision))
    return rows


def _split_text(trial: TrialAnalysis) -> str:
    """'48 before, 48 candidate, 48 restored; no request failures'."""
    phases = arm_phases(trial)
    split = ", ".join(f"{a.timed_ok} {phases[a.seq]}" for a in trial.arms)
    return f"{split}; {failures_text(trial)}"


def trial_card_rows(evidence: TrialEvidence, trial: TrialAnalysis) -> list[tuple[str, str, str]]:
    """One trial's result card, 'Headline measurement | Local result | Conditions': one trial per row, never
    two trials' values joined in one cell."""
    inputs, load = workload_text(evidence, trial)
    rows: list[tuple[str, str, str]] = [
        ("Engine", trial.engine_kind, f"{ENGINE_KINDS[trial.engine_kind]}; trial {trial.trial_id}, arms in {trial.design} order"),
        ("Workload", inputs, load),
        ("Timed requests completed", f"{trial.timed_ok}/{trial.timed_planned}", _split_text(trial)),
        ("Material latency wins", wins_text(trial), rule_sentence(trial)),
        (
            "Group verdicts",
            verdicts_text(trial),
            "one per group: win, likely, no-win, regression or inconclusive, from the predeclared rule and the launch-level 95% intervals"
            if is_v4(trial)
            else "one per group: win, no-win, regression or inconclusive, from the predeclared rule and the run-level 95% intervals",
        ),
    ]
    if is_v4(trial):  # statistics v4: the error rates the rule keeps, and what it could resolve
        rows.append(("Error rates kept", error_rates_text(trial), "from the predeclared rule (docs: analysis, statistics v4)"))
        rows.append(("Smallest resolvable change", smallest_change_text(trial), SMALLEST_CHANGE_MEANING))
    s = trial.slots
    if s.change_pct is not None:
        rows.append(
            (
                f"{trial.candidate_label} token slots",
                signed_percent(s.change_pct),
                f"engine-reported KV token slots, {count(s.original)} to {count(s.candidate)}",
            )
        )
    rows.append(
        (
            "Original configuration restored",
            "yes" if trial.restored_ok else "not shown by the evidence",
            "restored arm's gates and lifecycle checks passed and its KV token slots matched the original",
        )
    )
    return rows


def prose_sections(decision: Decision) -> list[tuple[str, str]]:
    """Narrative keys the page does not place by name, as (heading, prose), sorted by key."""
    return [(_title(k), v) for k, v in sorted(decision.narrative.items()) if k not in NARRATIVE_PLACED]
