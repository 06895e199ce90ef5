"""Timing reconciliation and counter reconciliation in words: read off the analysis, decided there.

Where nothing could be compared (no counters, no timing histograms) the words are "not
reconcilable", never "did not reconcile": a run that compared nothing disagreed with nothing.
"""

from __future__ import annotations

from ..analyze.report import ArmSummary, ArmTiming, TimingGap, TrialAnalysis
from .arms import arm_label_map, arm_phases
from .format import MINUS, count

__all__ = ["TIMING_TITLE", "TIMING_RUN_HEADERS", "milliseconds", "reconciled_text", "timing_gap_text",
           "timing_sentences", "timing_run_rows", "timing_compared"]

TIMING_TITLE = "Timing reconciliation with the engine"
TIMING_RUN_HEADERS = ["Arm", "Run", "Client − engine, TTFT", "Client − engine, end-to-end"]
TIMING_NAMES = {"ttft_s": "TTFT", "e2e_s": "end-to-end time"}
GAP_CONTAINS = ("The gap is time the engine does not see: vLLM (and the simulator, after it) starts both clocks when the request reaches its "
                "engine, after the API server has parsed the HTTP request, applied the chat template and tokenised "
                "the prompt, and stops them when the engine's output reaches the API server, before it is "
                "detokenised and streamed; so the gap holds the network both ways, that work in the API server, and "
                "the client's own time.")
STATUS_WORDS = {
    "no-counters": "not reconcilable: no counters around the run",
    "no-histogram": "not reconcilable: the engine exposes no timing histogram",
    "engine-restarted": "not comparable: the engine restarted during the run",
    "counter-reset": "not comparable: the engine's histogram went backwards (reset)",
    "count-mismatch": "not comparable: the engine observed {engine} requests, the client has {client} ok",
    "no-requests": "not comparable: no ok request",
}


def milliseconds(value: float | None) -> str:
    """A signed gap in milliseconds: ``+3.1 ms``, ``−0.042 ms`` (three decimals below 1 ms)."""
    if value is None:
        return "—"
    size = abs(value)
    text = f"{size:.1f}" if size >= 1 else f"{size:.3f}"
    sign = "" if float(text) == 0 else "+" if value > 0 else MINUS
    return f"{sign}{text} ms"


def reconciled_text(of: TrialAnalysis | ArmSummary) -> str:
    """'36/36', or '10/12 (2 not reconcilable: the engine exposed no counters)'."""
    text = f"{of.runs_reconciled}/{of.runs_total}"
    if of.runs_unreconcilable:
        text += f" ({of.runs_unreconcilable} not reconcilable: the engine exposed no counters)"
    return text


def timing_compared(trial: TrialAnalysis) -> bool:
    """Whether any run of the trial had the engine's timing histograms (compared or not comparable)."""
    return any(t.runs_compared or t.runs_not_comparable for a in trial.arms for t in a.timing)


def timing_gap_text(timing: ArmTiming) -> str:
    """'client-side TTFT exceeds the engine's by 3.1 ms on average (4 runs)', and what was not compared."""
    name = TIMING_NAMES[timing.metric]
    parts = []
    if timing.mean_gap_ms is not None:
        size = milliseconds(abs(timing.mean_gap_ms)).lstrip("+")
        runs = f"{timing.runs_compared} run{'s' if timing.runs_compared != 1 else ''}"
        if timing.mean_gap_ms >= 0:
            parts.append(f"client-side {name} exceeds the engine's by {size} on average ({runs})")
        else:
            parts.append(f"the engine's {name} exceeds the client's by {size} on average ({runs}): the engine "
                         "timed what the client did not see")
    if timing.runs_beyond_bound:
        parts.append(f"{timing.runs_beyond_bound} run(s) beyond the bound (largest "
                     f"{milliseconds(timing.largest_gap_ms)})")
    if timing.runs_not_comparable:
        parts.append(f"{name} not comparable in {timing.runs_not_comparable} run(s)")
    if timing.runs_not_reconcilable:
        parts.append(f"{name} not reconcilable in {timing.runs_not_reconcilable} run(s): the engine exposed no "
                     "timing histogram around them")
    return "; ".join(parts)


def timing_sentences(trial: TrialAnalysis) -> list[str]:
    """One sentence per arm (both times), then what the gap holds and the bound; or, where no run had the
    engine's timing histograms, the one sentence that says so."""
    bound = trial.rule.max_timing_gap_ms
    if not timing_compared(trial):
        return ["Engine timing: not reconcilable: the engine exposes no timing histograms (none are in the journals)."]
    phases = arm_phases(trial)
    out = [f"Engine timing, {phases[a.seq]}: {'; '.join(timing_gap_text(t) for t in a.timing)}." for a in trial.arms]
    out.append(GAP_CONTAINS)
    if bound is None:
        out.append("No bound was declared (max_timing_gap_ms): the gap is shown, not checked.")
    else:
        out.append(f"Declared bound: {bound:g} ms either way per run; a run beyond it blocks promotion.")
    return out


def _cell(gap: TimingGap) -> str:
    if gap.status == "compared":
        return milliseconds(gap.gap_ms) + (" (beyond the bound)" if gap.beyond_bound else "")
    engine = count(int(gap.engine_count)) if gap.engine_count is not None and gap.engine_count.is_integer() \
        else str(gap.engine_count)
    return STATUS_WORDS[gap.status].format(engine=engine, client=gap.client_count)


def timing_run_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Per run: arm, run, and the client's mean less the engine's for TTFT and end-to-end time, or why not."""
    labels = arm_label_map(trial)
    return [[labels[r.seq], r.run, *(_cell(gap) for gap in r.timing)] for r in trial.runs]
