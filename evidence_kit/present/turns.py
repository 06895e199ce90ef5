"""The per-turn table of a multi-turn trial: each turn's pooled TTFT and end-to-end time, as rows of text.

Read off the analysis' ``groups[].turns`` (``analyze/groups.py``); nothing here computes a figure.
"""

from __future__ import annotations

from ..analyze.report import GroupResult, TrialAnalysis, TurnResult
from ..model import PHASES
from .arms import phase_labels
from .format import count, dash, seconds, signed_percent
from .tables import hit_cell

__all__ = ["turn_title", "turn_headers", "turn_rows"]


def turn_title(trial: TrialAnalysis) -> str | None:
    """What the per-turn table shows; None when no group is multi-turn."""
    if not any(g.turns for g in trial.groups):
        return None
    simulated = " Simulated: these times are the simulator's." if trial.simulated else ""
    return (
        "Per turn: each conversation's turn k+1 re-sends turn k's messages and answer plus a new message, so a "
        "later turn's prompt holds the history. Median TTFT and end-to-end seconds of each turn's requests, and "
        "the candidate's change against each control (the rule judges every turn of a group pooled)." + simulated
    )


def turn_headers(trial: TrialAnalysis) -> list[str]:
    """Group, turn, prompt tokens, then each phase's median TTFT, the TTFT change, the same for end-to-end."""
    phases = list(phase_labels(trial).values())
    hits = ["Prefix-cache hit rate before / candidate / restored"] if _hits(trial) else []
    return [
        "Group",
        "Turn",
        "Prompt tokens",
        *(f"TTFT {p}" for p in phases),
        "TTFT change vs before / restored",
        *(f"E2E {p}" for p in phases),
        "E2E change vs before / restored",
        *hits,
    ]


def _hits(trial: TrialAnalysis) -> bool:
    return any(t.cache_hits for g in trial.groups for t in g.turns or [])


def _tokens(turn: TurnResult) -> str:
    low, high = turn.input_tokens_min, turn.input_tokens_max
    if low is None or high is None:
        return dash
    return count(low) if low == high else f"{count(low)}–{count(high)}"


def _changes(turn: TurnResult, metric: str) -> str:
    return " / ".join(signed_percent(c.change_pct) for c in turn.comparisons[metric])


def _row(group: GroupResult, turn: TurnResult, hits: bool) -> list[str]:
    cells = [group.label, str(turn.turn), _tokens(turn)]
    for metric in ("ttft_s", "e2e_s"):
        cells += [seconds(turn.pooled[metric][p].median) for p in PHASES] + [_changes(turn, metric)]
    if hits:
        cells.append(" / ".join(hit_cell(turn.cache_hits[p]) for p in PHASES) if turn.cache_hits else "not reported")
    return cells


def turn_rows(trial: TrialAnalysis) -> list[list[str]]:
    """One row per turn of every multi-turn group, in group then turn order (with each phase's prefix-cache hit
    rate where the engine reported cached tokens: a later turn's history served from the cache)."""
    hits = _hits(trial)
    return [_row(g, t, hits) for g in trial.groups for t in g.turns or []]
