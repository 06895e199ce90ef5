"""Trials simulated against a known truth and judged by statistics v4's own rule: its interval, its verdict
and Holm's step-down over the groups. The planner (``power`` on a v4 pilot) and ``bench/stat_verdicts.py``
both read it, so what is promised is what the rule delivers. Pure: seeded numpy draws, no I/O.

A simulated group: each arm (block) of the design draws a launch effect ``exp(sd_launch z)``; each of its
``runs`` runs a run effect ``exp(sd_run z)``; each of its ``requests`` requests ``exp(sd_request z)``; the
candidate's values are scaled by ``1 + change`` (negative: faster), and every arm by ``1 + drift`` per arm
position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..model.phase import Phase
from ..model.trial import ArmRef, DecisionRule
from .blocks import judged_against, launch_intervals
from .family import FAMILY_ALPHA, holm
from .report import Interval, Verdict
from .stats import median
from .verdicts import family_adjusted, verdict_v4

__all__ = ["Truth", "arms_of", "simulate_trial", "simulate_groups", "TrialOutcome"]


@dataclass(frozen=True)
class Truth:
    """What the simulated world holds: the candidate's true change and its noise (sds of log values)."""

    change: float
    sd_run: float
    sd_request: float
    sd_launch: float
    drift: float = 0.0


@dataclass(frozen=True)
class TrialOutcome:
    """One simulated trial: each group's verdict, whether it promotes, and each judged interval's coverage of the truth."""

    verdicts: tuple[str, ...]
    promoted: bool
    covered: tuple[bool | None, ...]


def arms_of(design: str) -> list[ArmRef]:
    """The arm references of a design spelled ``ABA``, ``ABABA``, ``ABBA``."""
    out = []
    for seq, letter in enumerate(design, start=1):
        phase: Phase = "before" if seq == 1 else "candidate" if letter == "B" else "restored"
        out.append(
            ArmRef(seq=seq, arm="a" if letter == "A" else "b", role="control" if letter == "A" else "candidate", phase=phase, journal=f"{seq}.jsonl")
        )
    return out


def _group_runs(rng: np.random.Generator, arms: Sequence[ArmRef], truth: Truth, runs: int, requests: int) -> list[list[list[float]]]:
    out = []
    for ref in arms:
        scale = (1 + truth.change if ref.role == "candidate" else 1.0) * (1 + truth.drift) ** (ref.seq - 1)
        launch = np.exp(truth.sd_launch * rng.standard_normal())
        effects = np.exp(truth.sd_run * rng.standard_normal(runs))
        values = scale * launch * effects[:, None] * np.exp(truth.sd_request * rng.standard_normal((runs, requests)))
        out.append(values.tolist())
    return out


def _simulated_group(
    rng: np.random.Generator, arms: Sequence[ArmRef], truth: Truth, rule: DecisionRule, runs: int, requests: int
) -> tuple[Verdict, list[bool | None]]:
    """One simulated group's v4 verdict (before Holm) and whether each judged interval holds the truth."""
    names = judged_against(arms)
    sign = 1 if rule.higher_is_better else -1
    per_arm = _group_runs(rng, arms, truth, runs, requests)
    intervals = [i for i in launch_intervals(arms, per_arm, median, "median", 1 + sign * rule.min_improvement) if i.control in names]
    improvements = [None if i.ratio is None else sign * (i.ratio - 1) * 100 for i in intervals]
    controls = [median([v for run in r for v in run]) for a, r in zip(arms, per_arm) if a.role == "control"]
    drift = None if not controls[0] or controls[-1] is None else (controls[-1] / controls[0] - 1) * 100
    flagged = names == ("before", "restored") and drift is not None and abs(drift) >= rule.min_improvement * 100 - 1e-9
    verdict = verdict_v4(improvements, intervals, rule, drift, clears=(False, False), drift_flagged=flagged, guardrails_held=True)
    return verdict, [_holds(i, truth) for i in intervals]


def _holds(interval: Interval, truth: Truth) -> bool | None:
    """Whether the interval holds the candidate's true change: against the corrected control always (the drift
    is modelled away), against one control block only without drift (not judged there: None)."""
    if interval.low is None or interval.high is None or not (interval.control == "corrected" or truth.drift == 0):
        return None
    return interval.low <= 1 + truth.change <= interval.high


def simulate_trial(
    rng: np.random.Generator,
    design: str,
    truth: Truth,
    rule: DecisionRule,
    *,
    groups: int,
    runs: int,
    requests: int,
    arms: Sequence[ArmRef] | None = None,
    decision_trials: int = 1,
) -> TrialOutcome:
    """One trial of ``groups`` alike groups judged by ``rule`` (statistics v4), Holm's step-down included, at the
    trial's share of the budget in a decision of ``decision_trials`` trials (as ``analyze`` judges it)."""
    return simulate_groups(rng, design, [truth] * groups, rule, runs=runs, requests=requests, arms=arms, decision_trials=decision_trials)


def simulate_groups(
    rng: np.random.Generator,
    design: str,
    truths: Sequence[Truth],
    rule: DecisionRule,
    *,
    runs: int,
    requests: int,
    arms: Sequence[ArmRef] | None = None,
    decision_trials: int = 1,
) -> TrialOutcome:
    """One trial whose groups each hold their own truth (the planner: one group improved, the others as the
    pilot measured them), judged as :func:`simulate_trial` judges it."""
    arms = list(arms) if arms is not None else arms_of(design)
    verdicts, covered = [], []
    for truth in truths:
        verdict, hits = _simulated_group(rng, arms, truth, rule, runs, requests)
        verdicts.append(verdict)
        covered += hits
    if rule.confidence == "bound":
        verdicts = [
            family_adjusted(v, level, ok) for v, (level, ok) in zip(verdicts, holm([v.p_value for v in verdicts], FAMILY_ALPHA / decision_trials))
        ]
    words = tuple(v.verdict for v in verdicts)
    return TrialOutcome(verdicts=words, promoted="win" in words, covered=tuple(covered))
