"""Power planning from a pilot trial: how many repetitions of how many requests resolve a change.

Pure, no I/O. For each group of a trial, on the log scale of the rule's metric:

1. **Noise.** The two control arms (original *before* and original *restored*) are the
   control population. Each run's values are logged; a run's *effect* is its mean log minus
   its arm's centre (the unweighted mean of the arm's run means, so a difference between the
   two controls is not counted as run-to-run noise), a request's *residual* its log minus its
   run's mean. One-way variance components, pooled over both arms (method of moments):
   request-to-request variance ``s_w^2 = sum(residual^2) / (N - K)`` (N values, K runs),
   run-to-run variance ``s_b^2 = max(0, sum(effect^2) / (K - A) - s_w^2 / n_h)`` (A arms with
   runs, n_h the harmonic mean of run sizes): the run means' spread less what their own
   requests put into it.
2. **Resampling.** A simulated arm of R repetitions of M requests draws R run effects and,
   for each, M residuals, both with replacement from the pilot's (pooled) ones, after
   rescaling them so their spread is the estimated component (the adjusted two-stage
   bootstrap of Davison & Hinkley 1997, section 3.8, and Carpenter, Goldstein & Rasbash 2003:
   resampling raw runs and raw requests would count the request noise twice and shrink the
   run noise by (K-1)/K); residuals are smoothed (see :class:`_Simulation`). Two arms drawn
   alike (no true change) give the log ratio of their pooled medians; its standard deviation over the resamples is the standard error ``se(R, M)``
   of the comparison a trial of that shape makes.
3. **Answer.** The smallest change resolved with 80 % power at 95 % confidence is
   ``1 - exp(-(z_0.975 + z_0.80) x se(R, M))`` (an improvement: the candidate that much faster);
   the plan is the smallest R (``MIN_REPETITIONS`` = 2 to ``max_repetitions``) whose change is at
   most the asked effect, for the pilot's M, 2M and 4M requests per run.

The same evidence always gives the same answer: the resamples come from SplitMix64 seeded with
:func:`~evidence_kit.analyze.stats.seed_for`. The candidate arm is assumed as noisy as the
controls; arm-to-arm differences (the two controls disagreeing beyond their run noise) do not
shrink with repetitions, and are flagged, not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..model.evidence import TrialEvidence
from .groups import group_results, requests_by_arm, run_values
from .stats import Z_LEVEL, Z_POWER, seed_for, splitmix64_block

__all__ = [
    "POWER_SCHEMA",
    "GroupPower",
    "NoiseComponents",
    "Plan",
    "PowerReport",
    "TrialPower",
    "control_noise",
    "detectable_from_se",
    "power_report",
    "power_trial",
    "standard_error",
]

POWER_SCHEMA: Final = "evidence-kit/power/v1"
POWER_RESAMPLES = 2000
MAX_REPETITIONS = 50
# One repetition per arm would leave the next trial blind to run-to-run noise (its run-level interval
# becomes the request-level one), so no plan asks for fewer than two.
MIN_REPETITIONS = 2
REQUEST_MULTIPLES: tuple[int, ...] = (1, 2, 4)
_CHUNK = 250  # resamples simulated at once
_SQRT3 = math.sqrt(3)


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Plan(_Doc):
    """How many repetitions of ``requests_per_run`` requests resolve the asked effect."""

    requests_per_run: int
    repetitions: int | None = Field(
        description="the smallest number of repetitions that resolves the effect; null when even max_repetitions does not"
    )
    detectable_pct: float = Field(description="the smallest change that many repetitions resolve (at max_repetitions when none suffices), in percent")


class GroupPower(_Doc):
    """One group's noise and plans."""

    input_nominal: int
    concurrency: int | None = Field(description="the group's concurrency; null in an open-loop group")
    rate: float | None = Field(default=None, description="open loop: the group's arrival rate, requests per second")
    label: str
    control_runs: int = Field(description="runs of the two control arms holding a value")
    control_requests: int = Field(description="values of the decision metric in those runs")
    excluded: int = Field(description="values left out because they are not positive (no logarithm)")
    run_df: int = Field(description="degrees of freedom of the run-to-run estimate: runs less control arms")
    request_df: int = Field(description="degrees of freedom of the request-to-request estimate: values less runs")
    run_sd_pct: float | None = Field(description="run-to-run standard deviation on the log scale, x 100 (about percent); null when run_df is 0")
    request_sd_pct: float | None = Field(description="request-to-request standard deviation on the log scale, x 100; null when request_df is 0")
    pilot_repetitions: int
    pilot_requests_per_run: int
    predicted_pct: float | None = Field(description="the smallest change a trial of the pilot's shape resolves, by this model")
    detectable_pct: float | None = Field(description="the smallest change this data resolves, as the analysis states it (its intervals)")
    plans: list[Plan]
    control_drift_pct: float | None = Field(description="(restored / before - 1) x 100 of the pooled medians")
    drift_beyond_noise: bool = Field(description="the two controls differ by more than their run and request noise explains at 95 %")


class TrialPower(_Doc):
    """Every group of one pilot trial."""

    trial_id: str
    title: str
    metric: str
    effect_pct: float
    groups: list[GroupPower]


class PowerReport(_Doc):
    """What ``evidence-kit power --json`` prints: not part of the evidence contract."""

    schema_: str = Field(default=POWER_SCHEMA, alias="schema")
    effect_pct: float
    confidence_pct: float = 95.0
    power_pct: float = 80.0
    max_repetitions: int
    resamples: int
    trials: list[TrialPower]

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NoiseComponents:
    """Control arms given as ``arms[arm][run][request]`` on the log scale, split into run effects and
    request residuals, and the variance components estimated from them (see the module's docstring).
    Values that are not positive have no logarithm: they are left out and counted (``excluded``)."""

    def __init__(self, arms: Sequence[Sequence[Sequence[float]]]):
        effects: list[float] = []
        residuals: list[float] = []
        sizes: list[int] = []
        self.excluded = 0
        arms_with_runs = 0
        for runs in arms:
            means = []
            for run in runs:
                logs = [math.log(v) for v in run if v > 0]
                self.excluded += len(run) - len(logs)
                if not logs:
                    continue
                mean = math.fsum(logs) / len(logs)
                means.append(mean)
                residuals.extend(x - mean for x in logs)
                sizes.append(len(logs))
            if means:
                arms_with_runs += 1
                centre = math.fsum(means) / len(means)
                effects.extend(m - centre for m in means)
        self.runs, self.values = len(sizes), len(residuals)
        self.run_df, self.request_df = self.runs - arms_with_runs, self.values - self.runs
        self.within = math.fsum(r * r for r in residuals) / self.request_df if self.request_df else 0.0
        if self.run_df:
            harmonic = len(sizes) / math.fsum(1 / n for n in sizes)
            self.between = max(0.0, math.fsum(e * e for e in effects) / self.run_df - self.within / harmonic)
        else:
            self.between = 0.0
        self.effects = _rescaled(effects, self.between)
        self.residuals = _rescaled(residuals, self.within)
        self.bandwidth = _bandwidth(self.residuals)
        # The shrunk smoothed bootstrap keeps the residuals' variance: (r + h e) / sqrt(1 + h^2 / s_w^2).
        self.shrink = 1 / math.sqrt(1 + self.bandwidth**2 / self.within) if self.within else 1.0

    def empty(self) -> bool:
        return self.values == 0


def _rescaled(values: Sequence[float], variance: float) -> np.ndarray:
    """``values`` scaled so their mean square is ``variance`` (all zero when they have none)."""
    array = np.array(values, dtype=np.float64)
    square = float(np.mean(array * array)) if len(array) else 0.0
    if square == 0.0:
        return np.zeros_like(array)
    scaled: np.ndarray = array * math.sqrt(variance / square)
    return scaled


def _bandwidth(residuals: np.ndarray) -> float:
    """Silverman's rule of thumb, ``0.9 x min(sd, IQR / 1.34) x n^(-1/5)`` (the sd alone when the IQR is 0)."""
    if len(residuals) < 2:
        return 0.0
    sd = float(np.std(residuals))
    q1, q3 = np.percentile(residuals, [25, 75])
    spread = min(sd, float(q3 - q1) / 1.34) or sd
    return 0.9 * spread * math.pow(len(residuals), -0.2)


def _fraction(z: np.ndarray) -> np.ndarray:
    """Uniform fractions in ``[0, 1)`` from SplitMix64 outputs: their top 53 bits."""
    fractions: np.ndarray = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return fractions


def _below(z: np.ndarray, n: int) -> np.ndarray:
    """Uniform integers in ``[0, n)`` from SplitMix64 outputs."""
    picks: np.ndarray = np.floor(_fraction(z) * n).astype(np.int64)
    return picks


class _Simulation:
    """Pairs of arms (no true change) of R repetitions of ``requests`` requests, drawn from ``noise``.

    A request's log value is its run's effect plus a residual, smoothed (the median of a resample
    from a few dozen pilot values would otherwise stick to their gaps however many are drawn): the
    shrunk smoothed bootstrap of Silverman & Young (1987), ``(r + h x e) / sqrt(1 + h^2 / s_w^2)``,
    ``e`` uniform with variance 1, ``h`` Silverman's bandwidth of the residuals.

    The random numbers of run slot ``r`` in resamples ``c .. c + 249`` are the SplitMix64 outputs of
    ``seed_for(seed, c, r)``, laid out as (arm, resample, 1 + 2 x requests): the first picks the run
    effect, the next ``requests`` the residuals, the last ``requests`` the smoothing. A shape of R
    repetitions uses slots 0 .. R-1, so se(R) of one simulation moves smoothly with R (common random
    numbers), and memory stays bounded.
    """

    def __init__(self, noise: NoiseComponents, requests: int, seed: int, resamples: int):
        self.noise, self.requests, self.seed, self.resamples = noise, requests, seed, resamples

    def standard_error(self, repetitions: int) -> float:
        effects, residuals, m = self.noise.effects, self.noise.residuals, self.requests
        log_ratios = []
        for start in range(0, self.resamples, _CHUNK):
            size = min(_CHUNK, self.resamples - start)
            logs = np.empty((2, size, repetitions, m))
            for slot in range(repetitions):
                z = splitmix64_block(seed_for(self.seed, start, slot), 2 * size * (1 + 2 * m)).reshape(2, size, 1 + 2 * m)
                effect = effects[_below(z[..., :1], len(effects))]
                jitter = _SQRT3 * (2 * _fraction(z[..., 1 + m :]) - 1)  # uniform, variance 1
                requests = residuals[_below(z[..., 1 : 1 + m], len(residuals))] + self.noise.bandwidth * jitter
                logs[:, :, slot, :] = effect + requests * self.noise.shrink
            medians = np.median(np.exp(logs.reshape(2, size, repetitions * m)), axis=2)
            log_ratios.append(np.log(medians[0] / medians[1]))
        return float(np.std(np.concatenate(log_ratios), ddof=1))


def standard_error(noise: NoiseComponents, repetitions: int, requests: int, seed: int, resamples: int = POWER_RESAMPLES) -> float:
    """The standard error of the log ratio of pooled medians for ``repetitions`` runs of ``requests``
    requests per arm, by resampling ``noise`` (0 for a pilot without values)."""
    if noise.empty():
        return 0.0
    return _Simulation(noise, requests, seed, resamples).standard_error(repetitions)


def detectable_from_se(se: float) -> float:
    """The smallest improvement (a fraction) resolved with 80 % power at 95 % confidence:
    ``1 - exp(-(z_0.975 + z_0.80) x se)``."""
    return -math.expm1(-(Z_LEVEL + Z_POWER) * se)


def _plan(simulation: _Simulation, requests: int, effect: float, max_repetitions: int) -> Plan:
    """The smallest R in MIN_REPETITIONS..max_repetitions resolving ``effect``.

    se(R) falls about as 1/sqrt(R), so R is guessed from se(MIN_REPETITIONS) and guessed again from the
    guess (at most three times); from there the search gallops (steps of 1, 2, 4, ...) to a failing and
    a resolving R and bisects between them: a few simulations, near the answer, whatever the pilot.
    """
    wanted = -math.log1p(-effect) / (Z_LEVEL + Z_POWER)  # the se that resolves the effect exactly
    se: dict[int, float] = {}

    def resolves(r: int) -> bool:
        if r not in se:
            se[r] = simulation.standard_error(r)
        return se[r] <= wanted

    def plan(r: int | None) -> Plan:
        return Plan(requests_per_run=requests, repetitions=r, detectable_pct=detectable_from_se(se[r or max_repetitions]) * 100)

    if resolves(MIN_REPETITIONS):
        return plan(MIN_REPETITIONS)
    high = MIN_REPETITIONS
    for _ in range(3):  # guess again from the last guess's se, by the 1/sqrt(R) law
        resolves(high)
        guess = min(max(math.ceil(high * (se[high] / wanted) ** 2), MIN_REPETITIONS + 1), max_repetitions)
        if guess == high:
            break
        high = guess
    low, step = MIN_REPETITIONS, 1
    if resolves(high):  # gallop down to a failing R
        while high - step > low and resolves(high - step):
            high, step = high - step, step * 2
        low = max(low, high - step)
    else:  # gallop up to a resolving R
        low = high
        while True:
            high = min(low + step, max_repetitions)
            if resolves(high):
                break
            if high == max_repetitions:
                return plan(None)
            low, step = high, step * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if resolves(mid) else (mid, high)
    return plan(high)


def control_noise(evidence: TrialEvidence, input_nominal: int, concurrency: int | float) -> NoiseComponents:
    """The noise of one group's control arms (every control block of the design, each on its own centre), in
    the rule's metric: the population every plan resamples."""
    cells = requests_by_arm(evidence)
    metric = evidence.trial.decision_rule.metric
    return NoiseComponents(
        [run_values([cells.get(ref.seq, {}).get((input_nominal, concurrency), [])], metric) for ref in evidence.trial.arms if ref.role == "control"]
    )


def power_trial(
    evidence: TrialEvidence,
    effect: float,
    *,
    max_repetitions: int = MAX_REPETITIONS,
    resamples: int = POWER_RESAMPLES,
    multiples: Sequence[int] = REQUEST_MULTIPLES,
) -> TrialPower:
    """Noise and plans for every group of a pilot trial, to resolve a change of ``effect`` (a fraction);
    ``multiples`` of the pilot's requests per run are planned, the first must be 1 (the pilot's own)."""
    if not 0 < effect < 1:
        raise ValueError("effect must be a fraction between 0 and 1")
    if not multiples or multiples[0] != 1 or resamples < 2 or max_repetitions < MIN_REPETITIONS:
        raise ValueError("plan the pilot's own requests per run first, with at least 2 resamples and repetitions")
    trial = evidence.trial
    metric = trial.decision_rule.metric
    workload = trial.workload
    if metric == "goodput":
        raise ValueError("power plans a latency rule (on its log scale); a goodput share has none")
    if workload.turns:  # requests_per_run counts conversations; their turns differ by the history they re-send
        raise ValueError("power plans independent, alike requests; a multi-turn workload's turns are neither")
    analysed = {(g.input_nominal, g.concurrency if g.concurrency is not None else g.rate): g for g in group_results(evidence)}
    groups = []
    for inp, conc in workload.groups():
        result = analysed[(inp, conc)]
        noise = control_noise(evidence, inp, conc)
        plans: list[Plan] = []
        predicted: float | None = None
        drift = result.verdict.control_drift_pct
        beyond = False
        if not noise.empty():
            for multiple in multiples:
                requests = workload.requests_per_run * multiple
                seed = seed_for("evidence-kit/power/v1", trial.trial_id, metric, inp, conc, requests)
                simulation = _Simulation(noise, requests, seed, resamples)
                plans.append(_plan(simulation, requests, effect, max_repetitions))
                if multiple == 1:  # the pilot's own shape
                    se = simulation.standard_error(workload.repetitions)
                    predicted = detectable_from_se(se) * 100
                    # Two control arms differ, by their noise alone, like a candidate without effect.
                    beyond = drift is not None and drift > -100 and abs(math.log1p(drift / 100)) > Z_LEVEL * se
        groups.append(
            GroupPower(
                input_nominal=inp,
                concurrency=result.concurrency,
                rate=result.rate,
                label=result.label,
                control_runs=noise.runs,
                control_requests=noise.values,
                excluded=noise.excluded,
                run_df=noise.run_df,
                request_df=noise.request_df,
                run_sd_pct=math.sqrt(noise.between) * 100 if noise.run_df else None,
                request_sd_pct=math.sqrt(noise.within) * 100 if noise.request_df else None,
                pilot_repetitions=workload.repetitions,
                pilot_requests_per_run=workload.requests_per_run,
                predicted_pct=predicted,
                detectable_pct=result.detectable_pct,
                plans=plans,
                control_drift_pct=drift,
                drift_beyond_noise=beyond,
            )
        )
    return TrialPower(trial_id=trial.trial_id, title=trial.title, metric=metric, effect_pct=effect * 100, groups=groups)


def power_report(
    trials: Sequence[TrialEvidence],
    effect: float,
    *,
    max_repetitions: int = MAX_REPETITIONS,
    resamples: int = POWER_RESAMPLES,
) -> PowerReport:
    """:func:`power_trial` of every trial, as one document."""
    return PowerReport(
        effect_pct=effect * 100,
        max_repetitions=max_repetitions,
        resamples=resamples,
        trials=[power_trial(t, effect, max_repetitions=max_repetitions, resamples=resamples) for t in trials],
    )
