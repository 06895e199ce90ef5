"""Evidence a trial that ran: at least one completed timed request in each trial, or one line saying why not.

A trial whose arms could not start, or whose every timed request failed, follows the
contract (its journals record exactly that) but measured nothing: its tables would be
dashes and its outcome a rule applied to no data. The commands that analyse, plan from,
export, publish or verify evidence read it through :func:`require_completed`, so such a
trial is refused (exit 2) with the reason its journals record, never shown as a result.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from ..errors import BadInput
from ..model.evidence import ArmEvidence, DecisionEvidence, TrialEvidence

__all__ = ["require_completed"]

E = TypeVar("E", bound="DecisionEvidence | TrialEvidence")


def _why_nothing_completed(arm: ArmEvidence) -> str:
    """What the arm's journal records about why none of its timed requests completed."""
    check = next((c for c in arm.checks if not c.ok and c.level != "warning"), None)
    if check is not None:
        return f"its {check.name} check failed" + (f": {check.detail}" if check.detail else "")
    gate = next((g for g in arm.gates if not g.ok), None)
    if gate is not None:
        return f"its {gate.name} gate ({gate.target}) failed" + (f": {gate.detail}" if gate.detail else "")
    timed = arm.timed
    if timed:
        first = timed[0].error or "no error recorded"
        return f"all {len(timed)} of its timed requests failed (the first: {first})"
    return "it recorded no timed request"


def _refusal(trial: TrialEvidence) -> BadInput | None:
    if any(r.ok for arm in trial.arms for r in arm.timed):
        return None
    first = trial.arms[0]
    return BadInput(
        f"no timed request completed in any arm of trial {trial.trial.trial_id!r}, so there is nothing to analyse or publish "
        f"(the {first.ref.phase} arm: {_why_nothing_completed(first)})",
        Path(trial.source) / first.ref.journal,
    )


def require_completed(evidence: E) -> E:
    """``evidence`` itself, when each of its trials holds a completed timed request; else :class:`BadInput`
    naming the first arm's journal of the first trial that holds none, and why."""
    trials = [evidence] if isinstance(evidence, TrialEvidence) else evidence.trials
    for trial in trials:
        refusal = _refusal(trial)
        if refusal is not None:
            raise refusal
    return evidence
