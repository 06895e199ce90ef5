"""Statistics v4's planner: how many runs of which design make the rule itself win with the asked power.

From a pilot trial, per group (pure: no I/O, seeded draws):

1. **What the pilot estimates.** Each block's runs give the request-to-request variance within a run
   (relative to the run's mean, pooled: ``s_q^2`` with ``N - K`` degrees of freedom) and the variance of a
   run's statistic (relative, pooled over the blocks: ``s_r^2`` with ``sum (k_j - 1)``); the blocks'
   disagreement gives the block variance ``B`` with ``d`` degrees of freedom (``launch.py``), whose launch
   part is ``L = max(0, B - mean v_j)``. A plan needs ``L``: with ``d < 2`` (A/B/A's one) it cannot be told
   from zero with any confidence, and the planner refuses, naming the design that can.
2. **Its uncertainty, carried.** Each simulated trial first draws, for every group, its world's variances
   from their estimates' sampling distributions (``s^2 chi2_df / df``: a variance estimated with ``df``
   degrees of freedom is the truth times ``chi2_df / df``); the world's request noise is the drawn ``s_q``,
   its run noise what the drawn ``s_r^2`` holds beyond the median of the pilot's requests per run
   (``f_n s_q^2``, ``f_n`` the variance of the median of ``n`` standard normals), its launch noise what the
   drawn ``B`` holds beyond the runs' share. So a plan from a small pilot is a plan for the spread of worlds
   its estimates could have come from, not for its point estimate alone. (The scaled-inverse-chi-square
   posterior, ``s^2 df / chi2_df``, has a far longer upper tail at 4 degrees of freedom: its plans achieved
   8-17 points more than promised and most pilots got none; ``bench/stat_planner.py``, docs/analysis.md.)
3. **The rule itself, as analyze applies it.** Each world is judged by :func:`.simulate.simulate_groups`:
   every group of the trial (each with its own pilot's noise), the pilot's requests per run, the
   design's blocks, the launch-level interval, the v4 verdict and Holm's step-down over the groups at the
   trial's share of the budget. The group planned for is truly ``effect`` better and the others unchanged,
   the hardest case for Holm's step-down (the group is tested at ``alpha / groups``); power is the share of
   worlds in which that group is called a win.
4. **The plan** is the fewest runs per block (2 to :data:`MAX_RUNS`) whose simulated power is at least
   the asked one (found by bisection: every run count is simulated with the same seed, so power climbs
   with the runs), for each design in :data:`DESIGNS`; printed beside it is the power a second, independent
   set of simulated trials achieves at that plan (the planned against the simulated again).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..model.evidence import TrialEvidence
from ..model.trial import DecisionRule
from .groups import group_labels, requests_by_arm, run_values
from .launch import BlockEstimate, block_estimate, launch_variance
from .simulate import Truth, arms_of, simulate_groups
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
    "median_factor",
    "plan_line",
    "world",
]

DESIGNS: tuple[str, ...] = ("ABA", "ABABA", "ABABABA", "ABABABABA")
MAX_RUNS = 20
MIN_LAUNCH_DF = 2


class PlanRefused(ValueError):
    """The pilot cannot estimate what a plan needs (the message says what, and which pilot can)."""


@dataclass(frozen=True)
class PilotNoise:
    """A group's noise as the pilot estimates it: relative variances of a request within a run, of a run's
    statistic and of a block's (launch and runs), each with its degrees of freedom, and the pilot's shape."""

    run_var: float
    run_df: int
    launch_var: float
    block_var: float
    launch_df: int
    requests: int
    request_var: float = 0.0
    request_df: int = 0

    @property
    def run_share(self) -> float:
        """The runs' share of the block variance at the pilot's runs per block, ``B - L``."""
        return self.block_var - self.launch_var


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
    filled = [list(run) for r in runs for run in r if run]
    requests = max(1, round(math.fsum(len(run) for run in filled) / max(1, len(filled))))
    # Each request relative to its run's mean: the within-run noise, with N - K degrees of freedom.
    residuals = [r for run in filled for r in _relative_to_mean(run)]
    request_df = len(residuals) - len(filled)
    request_var = math.fsum(r * r for r in residuals) / request_df if request_df > 0 else 0.0
    return PilotNoise(
        run_var=run_var,
        run_df=run_df,
        launch_var=max(0.0, block_var - mean_v),
        block_var=block_var,
        launch_df=launch_df,
        requests=requests,
        request_var=request_var,
        request_df=max(0, request_df),
    )


def _relative_to_mean(run: Sequence[float]) -> list[float]:
    """Each value relative to its run's mean, less 1 (none for a run whose mean is 0). In units of the run's largest
    value before summing: times near the largest float (the contract allows them) do not overflow the sum."""
    top = max(run)
    if not top:
        return []
    scaled = [v / top for v in run]
    centre = math.fsum(scaled) / len(scaled)
    return [v / centre - 1 for v in scaled]


@lru_cache(maxsize=64)
def median_factor(n: int) -> float:
    """The variance of the median of ``n`` standard normals (seeded simulation, 20,000 draws; 1 at ``n = 1``)."""
    if n == 1:
        return 1.0
    draws = np.random.default_rng(n).standard_normal((20_000, n))
    return float(np.median(draws, axis=1).var())


def _drawn(rng: np.random.Generator, value: float, df: int) -> float:
    """One draw of a variance from its estimate's sampling distribution, ``s^2 chi2_df / df`` (the value itself
    without df): worlds spread about the pilot's estimate as such an estimate spreads about the truth."""
    return value * rng.chisquare(df) / df if df > 0 else value


def world(rng: np.random.Generator, noise: PilotNoise, change: float, carry: bool = True) -> Truth:
    """One world the pilot is consistent with (``carry``), or its point estimate, with the candidate's ``change``."""
    request_var, run_var, block_var = noise.request_var, noise.run_var, noise.block_var
    if carry:
        request_var = _drawn(rng, request_var, noise.request_df)
        run_var = _drawn(rng, run_var, noise.run_df)
        block_var = _drawn(rng, block_var, noise.launch_df)
    shares = run_var / noise.run_var if noise.run_var > 0 else 1.0  # the runs' share of B moves with the drawn s_r^2
    return Truth(
        change=change,
        sd_run=math.sqrt(max(0.0, run_var - median_factor(noise.requests) * request_var)),
        sd_request=math.sqrt(request_var),
        sd_launch=math.sqrt(max(0.0, block_var - noise.run_share * shares)),
    )


def design_label(design: str) -> str:
    """'ABABA' -> 'A/B/A/B/A'."""
    return "/".join(design)


def _power(
    noises: Sequence[PilotNoise],
    design: str,
    runs: int,
    rule: DecisionRule,
    change: float,
    trials: int,
    seed: int,
    carry: bool = True,
    decision_trials: int = 1,
) -> float:
    """The share of simulated trials in which the first group, truly ``change`` (the others unchanged), wins."""
    rng = np.random.default_rng(seed)
    arms = arms_of(design)
    wins = 0
    for _ in range(trials):
        truths = [world(rng, n, change if i == 0 else 0.0, carry) for i, n in enumerate(noises)]
        outcome = simulate_groups(rng, design, truths, rule, runs=runs, requests=noises[0].requests, arms=arms, decision_trials=decision_trials)
        wins += outcome.verdicts[0] == "win"
    return wins / trials


def plan_design(
    noise: PilotNoise,
    design: str,
    rule: DecisionRule,
    effect: float,
    *,
    others: Sequence[PilotNoise] = (),
    power: float = 0.8,
    trials: int = 400,
    seed: int = 0,
    decision_trials: int = 1,
) -> DesignPlan:
    """The fewest runs per block of ``design`` at which the rule calls a group truly ``effect`` better a win with
    at least ``power``, in a trial whose ``others`` groups (their pilots' noise) are unchanged (simulated, the
    pilot's uncertainty carried), and a fresh simulation's power there."""
    change = effect if rule.higher_is_better else -effect
    noises = [noise, *others]

    def simulated(runs: int, at_seed: int = seed) -> float:
        return _power(noises, design, runs, rule, change, trials, at_seed, decision_trials=decision_trials)

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
    return DesignPlan(design=design, runs=high, planned_power=at_high, achieved_power=simulated(high, seed + 1))


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
    noises = []
    for label, runs in pilot_groups(evidence):
        try:
            noises.append((label, pilot_noise(design, runs)))
        except PlanRefused as refused:
            raise PlanRefused(f"{trial.trial_id} {label}: {refused}") from None
    share = "" if decision_trials == 1 else f" at 1/{decision_trials} of the budget, one of the decision's {decision_trials} trials"
    lines = [
        f"{trial.trial_id}: {trial.title}",
        f"  statistics v4: the rule itself simulated ({rule.confidence}, Holm over {len(noises)} group(s){share}, "
        f"{noises[0][1].requests if noises else 1} requests per run as in the pilot), the pilot's uncertainty carried; "
        f"one group {effect:.0%} better, the others unchanged, at {power:.0%} power",
    ]
    for index, (label, noise) in enumerate(noises):
        others = [n for i, (_, n) in enumerate(noises) if i != index]
        lines.append(
            f"  {label}: noise (relative sd) request-to-request {math.sqrt(noise.request_var):.1%} ({noise.request_df} df), "
            f"run-to-run {math.sqrt(noise.run_var):.1%} ({noise.run_df} df), "
            f"launch-to-launch {math.sqrt(noise.launch_var):.1%} ({noise.launch_df} df)"
        )
        for candidate in DESIGNS:
            seed = seed_for("plan", trial.trial_id, label, candidate) % 2**32
            plan = plan_design(noise, candidate, rule, effect, others=others, power=power, trials=trials, seed=seed, decision_trials=decision_trials)
            lines.append(plan_line(plan))
    return lines


def plan_line(plan: DesignPlan) -> str:
    """One design's plan in words: its runs per block, planned power and the power simulated again."""
    if plan.runs is None:
        return f"    {design_label(plan.design)}: more than {MAX_RUNS} runs per block"
    return (
        f"    {design_label(plan.design)}: {plan.runs} runs per block (planned power {plan.planned_power:.0%}, "
        f"simulated again {plan.achieved_power:.0%})"
    )
