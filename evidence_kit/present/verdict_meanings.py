"""What each verdict word means, in one registry, and the sentences a statistics v4 page says from it.

Every word of judgement a page or ``analyze`` prints is a key of :data:`VERDICT_MEANINGS`; docs/analysis.md
states each meaning as written here (``tests/present/test_verdict_meanings.py``). The v4 sentences read
the analysis' figures (the family-wise rate, each group's p-value and level, the detectable change) and
compute none.
"""

from __future__ import annotations

from ..analyze.report import GroupResult, Interval, TrialAnalysis
from .format import listed, percent

__all__ = [
    "VERDICT_WORDS",
    "VERDICT_MEANINGS",
    "is_v4",
    "judged",
    "likely_detail",
    "rule_confidence_v4",
    "verdict_definitions_v4",
    "interval_method_v4",
    "detectable_sentence_v4",
    "error_rates_text",
    "smallest_change_text",
    "SMALLEST_CHANGE_MEANING",
]

VERDICT_WORDS = {
    ("win", "clears-both"): "win",
    ("regression", "slower-than-both"): "regression",
    ("inconclusive", "controls-disagree"): "inconclusive: the controls disagree",
    ("no-win", "below-threshold"): "no-win",
    ("inconclusive", "unresolved"): "inconclusive: the intervals cannot resolve the threshold",
    ("likely", "not-resolved"): "likely, not resolved",
    ("likely", "not-admitted"): "likely, not resolved",
}
VERDICT_MEANINGS = {
    "win": "The candidate clears the threshold against the judged controls at the rule's confidence (under statistics v4's "
    "bound: the whole interval lies beyond it, admitted by Holm's step-down over the groups).",
    "likely, not resolved": "The point estimates clear the threshold but the interval, or the family's error budget, does "
    "not: more evidence may make it a win, and it is never one.",
    "regression": "The candidate is slower than the judged controls by at least half the threshold, at the rule's confidence.",
    "inconclusive: the controls disagree": "The before and the restored control differ by at least the threshold, so the row "
    "cannot be decided cleanly.",
    "no-win": "Against at least one judged control the interval excludes an improvement of the threshold's size.",
    "inconclusive: the intervals cannot resolve the threshold": "The intervals can resolve the threshold neither way.",
}
# What statistics v4's smallest resolvable change (``detectable_pct``, ``blocks.smallest_win``) means: the card
# says it beside the figure and docs/analysis.md states it word for word.
SMALLEST_CHANGE_MEANING = (
    "The smallest observed improvement, against each judged control, that the rule would have called a win at this "
    "trial's precision (its blocks' spreads, launch variance and degrees of freedom as measured, under bound at "
    "Holm's strictest level, so whatever the other groups show), not a power."
)
# The order a v4 verdict is tried in (verdicts.verdict_v4), as the page lists them.
V4_ORDER = (
    ("win", "clears-both"),
    ("regression", "slower-than-both"),
    ("inconclusive", "controls-disagree"),
    ("likely", "not-resolved"),
    ("no-win", "below-threshold"),
    ("inconclusive", "unresolved"),
)


def is_v4(trial: TrialAnalysis) -> bool:
    """The trial's rule declares statistics 4."""
    return trial.rule.statistics == 4


def judged(group: GroupResult) -> list[Interval]:
    """The intervals a v4 verdict reads: the drift-corrected one where the group has it, else both controls'."""
    corrected = [i for i in group.intervals if i.control == "corrected"]
    return corrected or list(group.intervals)


def _against(trial: TrialAnalysis) -> str:
    return "the drift-corrected control" if trial.design != "A/B/A" else "both controls"


def rule_confidence_v4(trial: TrialAnalysis) -> str:
    """The v4 rule's confidence and error control in words, after the threshold's sentence."""
    rule = trial.rule
    if rule.confidence == "point":
        return (
            " Statistics v4, confidence point: the point estimates alone decide, with no error control "
            "(a true change under the threshold wins often)."
        )
    if rule.confidence == "significant":
        return (
            f" Statistics v4: a win must also be significant, each 95% launch-level interval against {_against(trial)} "
            "excluding no change; no family-wise control over the groups."
        )
    trials = "" if (rule.decision_trials or 1) == 1 else f", shared evenly by the decision's {rule.decision_trials} trials"
    return (
        f" Statistics v4: a win must clear the threshold at the conservative end of each 95% launch-level interval "
        f"against {_against(trial)}, and Holm's step-down over the trial's {rule.family_groups} groups keeps the chance "
        f"that the decision promotes any group whose true improvement is under the threshold at most "
        f"{rule.family_alpha_pct:g}%{trials}."
    )


def likely_detail(group: GroupResult) -> str:
    """Why a likely group is not a win: its interval reaches past the threshold, or Holm's step-down did not admit it."""
    v = group.verdict
    if v.reason == "not-admitted":
        return f" (the interval clears the threshold, but Holm's step-down does not admit it: p = {v.p_value:.4f}, tested at {v.tested_at:.4f})"
    if any(i.low is None or i.high is None for i in judged(group)):
        return " (no launch-level interval could be drawn)"
    return " (an interval reaches past the threshold)"


def verdict_definitions_v4(trial: TrialAnalysis) -> list[str]:
    """The v4 verdicts in the order they are tried, each with its one-sentence meaning."""
    threshold = f"{trial.rule.min_improvement_pct:g}%"
    lines = [f"{VERDICT_WORDS[key]}: {VERDICT_MEANINGS[VERDICT_WORDS[key]]}" for key in V4_ORDER]
    return [f"The threshold is {threshold}, judged against {_against(trial)}."] + lines


def interval_method_v4(trial: TrialAnalysis) -> str:
    """How a v4 trial's intervals were drawn."""
    return (
        "Intervals are 95% launch-level intervals of the candidate / control ratio (statistics v4): every arm is one "
        "engine launch, so each interval carries the launch-to-launch noise the blocks' disagreement shows (before "
        "against restored, and the repeated blocks of a longer design) with the few degrees of freedom it has, as a "
        "t interval (Fieller's, Satterthwaite's degrees of freedom). Request-level intervals, which treat every request "
        "as independent, are in analysis.json for comparison. n.s. marks an interval that includes a ratio of 1 (no change)."
    )


def detectable_sentence_v4(trial: TrialAnalysis) -> str:
    """'Smallest change this trial could resolve: an observed improvement of at least 14.72% (~6K/C1), ... would
    have been called a win ...' (:data:`SMALLEST_CHANGE_MEANING`, in the trial's words)."""
    parts = [f"{percent(g.detectable_pct)} ({g.label})" for g in trial.groups if g.detectable_pct is not None]
    missing = [g.label for g in trial.groups if g.detectable_pct is None]
    text = "Smallest change this trial could resolve: "
    if parts:
        holm = f", at Holm's strictest level over its {trial.rule.family_groups} groups" if trial.rule.family_groups else ""
        text += (
            "an observed improvement of at least "
            + listed(parts)
            + f" against {_against(trial)} would have been called a win at this trial's precision (its measured spreads "
            + f"and degrees of freedom{holm}); that is not a power: plan one with evidence-kit power."
        )
    if missing:
        text += (
            (" " if parts else "")
            + "Not estimable at "
            + listed(missing)
            + ": no launch-level interval could be drawn, or none narrow enough for any improvement to be called a win."
        )
    return text


def error_rates_text(trial: TrialAnalysis) -> str:
    """The error rates the trial's rule keeps, for the result card."""
    rule = trial.rule
    if not is_v4(trial):
        return f"confidence {rule.confidence}: no family-wise rate is kept (statistics v3)"
    if rule.confidence != "bound":
        return f"confidence {rule.confidence}: no family-wise rate is kept"
    return (
        f"false promotion at most {rule.family_alpha_pct:g}% per decision (Holm over {rule.family_groups} groups"
        + ("" if (rule.decision_trials or 1) == 1 else f", {rule.decision_trials} trials")
        + "); 95% launch-level intervals"
    )


def smallest_change_text(trial: TrialAnalysis) -> str:
    """The smallest of the groups' smallest resolvable changes ('14.06% at ~6K/C4'), for the result card."""
    known = sorted((g.detectable_pct, g.label) for g in trial.groups if g.detectable_pct is not None)
    return "not estimable" if not known else f"{percent(known[0][0])} at {known[0][1]}"
