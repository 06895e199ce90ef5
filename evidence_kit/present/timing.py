"""Timing reconciliation and counter reconciliation in words: read off the analysis, decided there.

Where nothing could be compared (no counters, no timing histograms) the words are "not
reconcilable", never "did not reconcile": a run that compared nothing disagreed with nothing. The
words say what the run records hold: no counters at all, or counters without the request and token
counters (or without a timing histogram). Beside a declared bound a gap never rounds onto or
across it (:func:`evidence_kit.present.format.beside`).
"""

from __future__ import annotations

from ..analyze.report import ArmSummary, ArmTiming, TimingGap, TrialAnalysis
from .arms import arm_label_map, arm_phases
from .format import MINUS, beside, count

__all__ = [
    "TIMING_TITLE",
    "TIMING_RUN_HEADERS",
    "TIMING_NAMES",
    "milliseconds",
    "not_reconcilable_why",
    "reconciled_text",
    "timing_gap_text",
    "timing_sentences",
    "timing_run_rows",
    "timing_compared",
]

TIMING_TITLE = "Timing reconciliation with the engine"
TIMING_RUN_HEADERS = ["Arm", "Run", "Client − engine, TTFT", "Client − engine, end-to-end"]
TIMING_NAMES = {"ttft_s": "TTFT", "e2e_s": "end-to-end time"}
GAP_CONTAINS = (
    "The gap is time the engine does not see: vLLM (and the simulator, after it) starts both clocks when the request reaches its "
    "engine, after the API server has parsed the HTTP request, applied the chat template and tokenised "
    "the prompt, and stops them when the engine's output reaches the API server, before it is "
    "detokenised and streamed; so the gap holds the network both ways, that work in the API server, and "
    "the client's own time."
)
STATUS_WORDS = {
    "no-counters": "not reconcilable: no counters recorded around the run",
    "no-histogram": "not reconcilable: no {name} histogram among the counters recorded around the run",
    "engine-restarted": "not comparable: the engine restarted during the run",
    "counter-reset": "not comparable: the engine's histogram went backwards (reset)",
    "count-mismatch": "not comparable: the engine observed {engine} requests, the client has {client} ok request(s) carrying the {name}",
    "no-requests": "not comparable: no ok request",
    "not-finite": "not comparable: the client's and the engine's means are too far apart for a finite gap in ms",
}


def milliseconds(value: float | None, bound: float | None = None) -> str:
    """A signed gap in milliseconds: ``+3.1 ms``, ``−0.042 ms`` (three decimals below 1 ms); beside a
    ``bound``, with as many more decimals as keep its size on the bound's side (or on it) as the value is:
    50.04 beside 50 is ``+50.04 ms``, never ``+50.0 ms``."""
    if value is None:
        return "—"
    size = abs(value)
    decimals = 1 if size >= 1 else 3
    if bound is None:
        text = f"{size:.{decimals}f}"
    else:

        def side(x: float) -> int:
            return (x > bound) - (x < bound)

        text = beside(size, decimals, side(size), side)
    sign = "" if float(text) == 0 else "+" if value > 0 else MINUS
    return f"{sign}{text} ms"


def reconciled_text(of: TrialAnalysis | ArmSummary) -> str:
    """'36/36'; '10/12 (2 not reconcilable: no counters recorded around them)'; '10/12 (2 not reconcilable:
    no request or token counters among the counters recorded around them)'; or both, with how many lack
    counters altogether."""
    text = f"{of.runs_reconciled}/{of.runs_total}"
    if not of.runs_unreconcilable:
        return text
    why = not_reconcilable_why(of.runs_unreconcilable, of.runs_without_counters, "request or token counters")
    return f"{text} ({of.runs_unreconcilable} not reconcilable: {why})"


def not_reconcilable_why(runs: int, without_counters: int, missing: str) -> str:
    """Why ``runs`` runs are not reconcilable, as their records show it: ``without_counters`` of them hold no
    counters at all, the others' counters hold no ``missing`` ('request or token counters', 'TTFT histogram')."""
    if without_counters == runs:
        return "no counters recorded around them"
    if not without_counters:
        return f"no {missing} among the counters recorded around them"
    return f"{without_counters} with no counters recorded around them, the others with no {missing} among theirs"


def timing_compared(trial: TrialAnalysis) -> bool:
    """Whether any run of the trial had the engine's timing histograms (compared or not comparable)."""
    return any(t.runs_compared or t.runs_not_comparable for a in trial.arms for t in a.timing)


def timing_gap_text(timing: ArmTiming, bound: float | None = None) -> str:
    """'client-side TTFT exceeds the engine's by 3.1 ms on average (4 runs)', and what was not compared;
    the figures beside the declared ``bound`` never round onto or across it."""
    name = TIMING_NAMES[timing.metric]
    parts = []
    if timing.mean_gap_ms is not None:
        size = milliseconds(abs(timing.mean_gap_ms), bound).lstrip("+")
        runs = f"{timing.runs_compared} run{'s' if timing.runs_compared != 1 else ''}"
        if timing.mean_gap_ms >= 0:
            parts.append(f"client-side {name} exceeds the engine's by {size} on average ({runs})")
        else:
            parts.append(f"the engine's {name} exceeds the client's by {size} on average ({runs}): the engine timed what the client did not see")
    if timing.runs_beyond_bound:
        parts.append(f"{timing.runs_beyond_bound} run(s) beyond the bound (largest {milliseconds(timing.largest_gap_ms, bound)})")
    if timing.runs_not_comparable:
        parts.append(f"{name} not comparable in {timing.runs_not_comparable} run(s)")
    if timing.runs_not_reconcilable:
        why = not_reconcilable_why(timing.runs_not_reconcilable, timing.runs_without_counters, f"{name} histogram")
        parts.append(f"{name} not reconcilable in {timing.runs_not_reconcilable} run(s): {why}")
    return "; ".join(parts)


def _nothing_compared(trial: TrialAnalysis) -> str:
    """Why no run had the engine's timing histograms, as the records show it."""
    statuses = {gap.status for run in trial.runs for gap in run.timing}
    if statuses == {"no-counters"}:
        return "Engine timing: not reconcilable: no run has counters recorded around it, so no timing histograms either."
    if "no-counters" in statuses:
        return (
            "Engine timing: not reconcilable: no timing histograms are in the journals (some runs have no "
            "counters recorded around them, the others' counters hold none)."
        )
    return "Engine timing: not reconcilable: no timing histograms are in the journals (the counters recorded around the runs hold none)."


def timing_sentences(trial: TrialAnalysis) -> list[str]:
    """One sentence per arm (both times), then what the gap holds and the bound; or, where no run had the
    engine's timing histograms, the sentence that says so (and, with a declared bound, that it was not checked)."""
    bound = trial.rule.max_timing_gap_ms
    if not timing_compared(trial):
        out = [_nothing_compared(trial)]
        if bound is not None:
            out.append(f"Declared bound: {bound:g} ms either way per run; it could not be checked on any run, so the candidate cannot be promoted.")
        return out
    phases = arm_phases(trial)
    out = [f"Engine timing, {phases[a.seq]}: {'; '.join(timing_gap_text(t, bound) for t in a.timing)}." for a in trial.arms]
    out.append(GAP_CONTAINS)
    if bound is None:
        out.append("No bound was declared (max_timing_gap_ms): the gap is shown, not checked.")
    else:
        out.append(
            f"Declared bound: {bound:g} ms either way per run; a run beyond it, or a run where a time could "
            "not be compared (not comparable or not reconcilable), blocks promotion."
        )
    return out


def _cell(gap: TimingGap, bound: float | None) -> str:
    if gap.status == "compared":
        return milliseconds(gap.gap_ms, bound) + (" (beyond the bound)" if gap.beyond_bound else "")
    engine = count(int(gap.engine_count)) if gap.engine_count is not None and gap.engine_count.is_integer() else str(gap.engine_count)
    return STATUS_WORDS[gap.status].format(engine=engine, client=gap.client_count, name=TIMING_NAMES[gap.metric])


def timing_run_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Per run: arm, run, and the client's mean less the engine's for TTFT and end-to-end time, or why not."""
    labels = arm_label_map(trial)
    bound = trial.rule.max_timing_gap_ms
    return [[labels[r.seq], r.run, *(_cell(gap, bound) for gap in r.timing)] for r in trial.runs]
