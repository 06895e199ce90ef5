"""Statistics v4's planner: how many runs of which design make the rule itself win with the asked power.

From a pilot trial, per group (pure: no I/O, seeded draws):

1. **What the pilot estimates.** Each block's runs give the run-to-run variance of a run's statistic
   (relative, pooled over the blocks: ``s_r^2`` with ``sum (k_j - 1)`` degrees of freedom); the blocks'
   disagreement gives the block variance ``B`` with ``d`` degrees of freedom (``launch.py``), whose
   launch part is ``L = max(0, B - mean v_j)``. A plan needs ``L``: with ``d < 2`` (A/B/A's one) it cannot be
   told from zero with any confidence, and the planner refuses, naming the design that can.
2. **Its uncertainty, carried.** Each simulated trial first draws its world's variances from their
   scaled-inverse-chi-square posteriors (``s^2 df / chi2_df``), so a plan from a small pilot is a plan for
   every world the pilot is consistent with, not for its point estimate.
3. **The rule itself.** Each world is judged by :func:`.simulate.simulate_trial`: the launch-level
   interval, the v4 verdict and Holm's step-down over the trial's groups; power is the share of worlds in
   which the group of interest (every group at the asked change) promotes the trial.
4. **The plan** is the fewest runs per block (2 to :data:`MAX_RUNS`) whose simulated power is at least
   the asked one (found by bisection: every run count is simulated with the same seed, so power climbs
   with the runs), for each design in :data:`DESIGNS`; printed beside it is the power a second, independent
   set of simulated trials achieves at that plan (the planned against the achieved).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..model.evidence import TrialEvidence
from ..model.trial import DecisionRule
from .groups import group_labels, requests_by_arm, run_values
from .launch import BlockEstimate, block_estimate, launch_variance
from .simulate import Truth, arms_of, simulate_trial
from .stats import median, seed_for

__all__ = [
    "PilotNoise",
    "DesignPlan",
    "pilot_noise",
    "plan_design",
    "plan_lines",
    "pilot_groups",
    "design_label",
    "DESIGNS",
    "MAX_RUNS",
    "PlanRefused",
]

DESIGNS: tuple[str, ...] = ("ABA", "ABABA", "ABABABA", "ABABABABA")
MAX_RUNS = 20
MIN_LAUNCH_DF = 2


class PlanRefused(ValueError):
    """The pilot cannot estimate what a plan needs (the message says what, and which pilot can)."""


@dataclass(frozen=True)
class PilotNoise:
    """A group's noise as the pilot estimates it: relative variances of a run's statistic and of a launch."""

    run_var: float
    run_df: int
    launch_var: float
    block_var: float
    launch_df: int
    requests: int


@dataclass(frozen=True)
class DesignPlan:
    """The fewest runs per block of one design that reach the power, and the power a fresh simulation achieves."""

    design: str
    runs: int | None
    planned_power: float | None
    achieved_power: float | None


def pilot_noise(design: str, runs: Sequence[Sequence[Sequence[float]]]) -> PilotNoise:
    """A group's noise from the pilot: each arm's runs (in ``design`` order, ``ABA``...). Refuses (PlanRefused)
    when the launch variance has fewer than :data:`MIN_LAUNCH_DF` degrees of freedom."""
    arms = arms_of(design)
    kept = [e for e in (block_estimate(r, median, float(a.seq)) for a, r in zip(arms, runs)) if e is not None]
    if len(kept) < len(arms):
        raise PlanRefused("a block of the pilot has fewer than two runs with values: nothing to estimate run-to-run noise from")
    controls = [e for a, e in zip(arms, kept) if a.role == "control"]
    candidates = [e for a, e in zip(arms, kept) if a.role == "candidate"]
    block = launch_variance(controls, candidates)
    if block.df < MIN_LAUNCH_DF:
        raise PlanRefused(
            f"the pilot's {design_label(design)} design gives the launch-to-launch noise {block.df} degree(s) of freedom "
            f"and a plan needs at least {MIN_LAUNCH_DF}: run the pilot as A/B/A/B/A (2) or A/B/A/B/A/B/A (4)"
        )
    if block.variance == 0 and all(e.rel_var == 0 for e in kept):
        # Runs that all took one time: the analysis draws no interval from them, and a plan on no noise is no plan.
        raise PlanRefused("every run of the pilot took one time: no spread to estimate run-to-run or launch-to-launch noise from")
    return _noise(kept, block.variance, block.df, runs)


def _noise(kept: Sequence[BlockEstimate], block_var: float, launch_df: int, runs: Sequence[Sequence[Sequence[float]]]) -> PilotNoise:
    run_df = sum(e.df for e in kept)
    # A run's statistic's relative variance: each block's variance of its mean times its runs, pooled.
    run_var = math.fsum(e.rel_var * (e.df + 1) * e.df for e in kept) / run_df
    mean_v = math.fsum(e.rel_var for e in kept) / len(kept)
    requests = max(1, round(math.fsum(len(run) for r in runs for run in r) / max(1, sum(len(r) for r in runs))))
    return PilotNoise(
        run_var=run_var, run_df=run_df, launch_var=max(0.0, block_var - mean_v), block_var=block_var, launch_df=launch_df, requests=requests
    )


def design_label(design: str) -> str:
    """'ABABA' -> 'A/B/A/B/A'."""
    return "/".join(design)


def _power(
    noise: PilotNoise,
    design: str,
    runs: int,
    rule: DecisionRule,
    change: float,
    groups: int,
    trials: int,
    seed: int,
    carry: bool = True,
    decision_trials: int = 1,
) -> float:
    rng = np.random.default_rng(seed)
    arms = arms_of(design)
    wins = 0
    for _ in range(trials):
        run_var, block_var = noise.run_var, noise.block_var
        if carry:  # a world the pilot is consistent with: scaled-inverse-chi-square draws
            run_var = run_var * noise.run_df / rng.chisquare(noise.run_df)
            block_var = block_var * noise.launch_df / rng.chisquare(noise.launch_df)
        launch_var = max(0.0, block_var - (noise.block_var - noise.launch_var))
        truth = Truth(change=change, sd_run=math.sqrt(run_var), sd_request=0.0, sd_launch=math.sqrt(launch_var))
        outcome = simulate_trial(rng, design, truth, rule, groups=groups, runs=runs, requests=1, arms=arms, decision_trials=decision_trials)
        wins += outcome.verdicts[0] == "win"
    return wins / trials


def plan_design(
    noise: PilotNoise,
    design: str,
    rule: DecisionRule,
    effect: float,
    *,
    groups: int,
    power: float = 0.8,
    trials: int = 400,
    seed: int = 0,
    decision_trials: int = 1,
) -> DesignPlan:
    """The fewest runs per block of ``design`` at which the rule wins a group truly ``effect`` better with at
    least ``power`` (simulated, the pilot's uncertainty carried), and a fresh simulation's power there."""
    change = effect if rule.higher_is_better else -effect

    def simulated(runs: int) -> float:
        return _power(noise, design, runs, rule, change, groups, trials, seed, decision_trials=decision_trials)

    # The same seed at every run count (common random numbers), so power climbs with the runs and a
    # bisection finds the fewest that reach it: MAX_RUNS first, and nothing to find when even it falls short.
    top = simulated(MAX_RUNS)
    if top < power:
        return DesignPlan(design=design, runs=None, planned_power=None, achieved_power=None)
    low, high, at_high = 1, MAX_RUNS, top  # low falls short (or is below the fewest), high reaches
    while high - low > 1:
        mid = (low + high) // 2
        reached = simulated(mid) if mid >= 2 else 0.0
        low, high, at_high = (low, mid, reached) if reached >= power else (mid, high, at_high)
    achieved = _power(noise, design, high, rule, change, groups, trials, seed + 1, decision_trials=decision_trials)
    return DesignPlan(design=design, runs=high, planned_power=at_high, achieved_power=achieved)


def pilot_groups(evidence: TrialEvidence) -> list[tuple[str, list[list[list[float]]]]]:
    """Each group's label and its arms' runs of the rule's metric (in run order), as the planner reads them."""
    trial = evidence.trial
    cells = requests_by_arm(evidence)
    labels = group_labels(evidence)
    out = []
    for key in trial.workload.groups():
        per_arm = [cells.get(ref.seq, {}).get(key, []) for ref in trial.arms]
        out.append((labels[key], [run_values([rs], trial.decision_rule.metric, trial.slo) for rs in per_arm]))
    return out


def plan_lines(evidence: TrialEvidence, effect: float, *, power: float = 0.8, trials: int = 400, decision_trials: int = 1) -> list[str]:
    """The v4 plan of one pilot trial in words (PlanRefused when a group's pilot cannot estimate the noise)."""
    trial = evidence.trial
    rule = trial.decision_rule
    design = trial.design.replace("/", "")
    groups = len(trial.workload.groups())
    share = "" if decision_trials == 1 else f" at 1/{decision_trials} of the budget, one of the decision's {decision_trials} trials"
    lines = [
        f"{trial.trial_id}: {trial.title}",
        f"  statistics v4: the rule itself simulated ({rule.confidence}, Holm over {groups} group(s)"
        f"{share}), the pilot's "
        f"uncertainty carried; a {effect:.0%} improvement at {power:.0%} power",
    ]
    for label, runs in pilot_groups(evidence):
        try:
            noise = pilot_noise(design, runs)
        except PlanRefused as refused:
            raise PlanRefused(f"{trial.trial_id} {label}: {refused}") from None
        lines.append(
            f"  {label}: noise (relative sd) run-to-run {math.sqrt(noise.run_var):.1%} ({noise.run_df} df), "
            f"launch-to-launch {math.sqrt(noise.launch_var):.1%} ({noise.launch_df} df)"
        )
        for candidate in DESIGNS:
            plan = plan_design(
                noise,
                candidate,
                rule,
                effect,
                groups=groups,
                power=power,
                trials=trials,
                seed=seed_for("plan", trial.trial_id, label, candidate) % 2**32,
                decision_trials=decision_trials,
            )
            if plan.runs is None:
                lines.append(f"    {design_label(candidate)}: more than {MAX_RUNS} runs per block")
            else:
                lines.append(
                    f"    {design_label(candidate)}: {plan.runs} runs per block (planned power {plan.planned_power:.0%}, "
                    f"simulated again {plan.achieved_power:.0%})"
                )
    return lines
