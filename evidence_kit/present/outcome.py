"""The decision at a glance: promote, retain or inconclusive, and the one reason, per trial.

The decision page opens with this, before anything else: a reader who stops after one box
knows what was decided and why. Every word is read off the analysis (``outcome``, ``wins``,
``verdicts``, ``blocked_by``, the ``incomplete`` findings); nothing is decided here that the
analysis did not decide. The three words sort what the analysis says:

- **promote**: the trial's ``outcome`` is ``promote``;
- **inconclusive**: it is not, and every group that did not win is unresolved, ``likely`` or
  ``inconclusive`` (the data decided no group against the candidate, they just did not resolve
  it), and nothing blocked the trial;
- **retain**: any other no-promotion: a group decided against the candidate (``no-win``,
  ``regression``), a reason in ``blocked_by`` (a breached guardrail, a failed gate…), or an
  incomplete trial.

A decision promotes when a trial does (``decision.outcome``); it is inconclusive when every
trial is, and else retains the original configuration.
"""

from __future__ import annotations

from typing import Literal

from ..analyze.report import Analysis, TrialAnalysis
from .wording import finding_sentence, interval_level

__all__ = ["OUTCOME_BOXES", "trial_outcome", "decision_outcome", "outcome_reason", "incomplete_sentences"]

Outcome = Literal["promote", "retain", "inconclusive"]
# The verdicts that decide a group neither way: a point estimate past the threshold whose interval is not
# ("likely"), and an interval that resolves nothing ("inconclusive").
UNRESOLVED = ("likely", "inconclusive")
# Each outcome's admonition type (Material's own types, so any Material theme styles them) and title.
OUTCOME_BOXES: dict[str, tuple[str, str]] = {
    "promote": ("success", "Promote the candidate"),
    "retain": ("failure", "Retain the original configuration"),
    "inconclusive": ("question", "Inconclusive: retain the original configuration"),
}


def _incomplete(trial: TrialAnalysis) -> bool:
    return any(f.kind == "incomplete" for f in trial.findings)


def trial_outcome(trial: TrialAnalysis) -> Outcome:
    """``promote``, ``retain`` or ``inconclusive`` for one trial (see the module's docstring)."""
    if trial.outcome == "promote":
        return "promote"
    against = any(n for name, n in trial.verdicts.items() if name not in ("win", *UNRESOLVED))
    unresolved = any(trial.verdicts.get(name) for name in UNRESOLVED)
    if unresolved and not against and not trial.blocked_by and not _incomplete(trial):
        return "inconclusive"
    return "retain"


def decision_outcome(analysis: Analysis) -> Outcome:
    """The decision's word: promote when a trial promotes, inconclusive when every trial is, else retain."""
    if analysis.decision.outcome == "promote":
        return "promote"
    return "inconclusive" if all(trial_outcome(t) == "inconclusive" for t in analysis.trials) else "retain"


def _more(reasons: list[str]) -> str:
    extra = len(reasons) - 1
    return "" if extra == 0 else f" (and {extra} more reason{'s' if extra > 1 else ''}, in its results)"


def outcome_reason(trial: TrialAnalysis) -> str:
    """The one reason for one trial's outcome, in a sentence:
    '2/4 groups won but guardrails breached at ~1K/C4, so no promotion.'"""
    won = f"{trial.wins}/{trial.groups_total} groups won"
    scope = "one group" if trial.rule.promote_if == "any-group" else "every group"
    kind = trial_outcome(trial)
    if kind == "promote":
        return f"{won}, the rule promotes when {scope} wins, and nothing blocks promotion."
    if trial.blocked_by:
        return f"{won} but {trial.blocked_by[0]}, so no promotion{_more(trial.blocked_by)}."
    if _incomplete(trial):
        return f"{won}: the trial is incomplete (an arm completed no timed request in some group), so no promotion."
    if kind == "inconclusive":
        others = "the others" if trial.wins else "all"
        counts = ", ".join(f"{trial.verdicts[name]} {name}" for name in UNRESOLVED if trial.verdicts.get(name))
        return f"{won}; {others} are unresolved ({counts}: the data resolve neither a win nor its absence), so no promotion."
    decided = ", ".join(f"{n} {name}" for name, n in trial.verdicts.items() if n and name not in ("win", *UNRESOLVED))
    return f"{won} ({decided}); the rule promotes only when {scope} wins, so no promotion."


def incomplete_sentences(trial: TrialAnalysis) -> list[str]:
    """The trial's ``incomplete`` findings in words (the page's warning box), first finding first."""
    return [
        finding_sentence(f, trial.candidate_label, trial.rule.min_improvement_pct, interval_level(trial))
        for f in trial.findings
        if f.kind == "incomplete"
    ]
