"""Power planning: variance components with known values, more repetitions for noisier runs,
predictions against brute force, and ``evidence-kit power`` on the reference decision."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from evidence_kit.analyze import analyze, analyze_trial
from evidence_kit.analyze.power import (
    NoiseComponents,
    PowerReport,
    TrialPower,
    control_noise,
    detectable_from_se,
    power_trial,
    standard_error,
)
from evidence_kit.analyze.stats import seed_for
from evidence_kit.commands.power import render_power
from evidence_kit.examples.synthetic import synthetic_trial
from evidence_kit.model import PHASES
from evidence_kit.read import load_decision
from tests.conftest import REPO


def _lognormal_runs(
    rng: np.random.Generator, repetitions: int, requests: int, run_sd: float, request_sd: float, scale: float = 5.0
) -> list[list[float]]:
    return [list(scale * math.exp(rng.normal(0, run_sd)) * np.exp(rng.normal(0, request_sd, requests))) for _ in range(repetitions)]


def _trial(trial_id: str, run_sd: float, request_sd: float, repetitions: int = 6, requests: int = 4, seed: int = 1):
    rng = np.random.default_rng(seed)
    return synthetic_trial(trial_id, {p: _lognormal_runs(rng, repetitions, requests, run_sd, request_sd) for p in PHASES})


def _text(trial_power: TrialPower) -> str:
    return render_power(PowerReport(effect_pct=10.0, max_repetitions=50, resamples=2000, trials=[trial_power]))


def test_variance_components_known_values() -> None:
    # Log values: runs at +-0.1 around their arm's centre, requests at +-0.02 around their run.
    # The second arm sits 0.5 higher: a difference between the controls is not run-to-run noise.
    def arm(centre: float) -> list[list[float]]:
        return [[math.exp(centre + run + d) for d in (0.02, -0.02)] for run in (0.1, -0.1)]

    noise = NoiseComponents([arm(0.0), arm(0.5)])
    assert (noise.runs, noise.values, noise.run_df, noise.request_df) == (4, 8, 2, 4)
    assert math.isclose(noise.within, 8 * 0.02**2 / 4)
    assert math.isclose(noise.between, 4 * 0.1**2 / 2 - noise.within / 2)
    assert noise.excluded == 0
    assert NoiseComponents([[[1.0, 0.0, -2.0]]]).excluded == 2  # no logarithm: left out and counted


def test_one_run_per_control_arm_cannot_estimate_run_noise() -> None:
    result = power_trial(_trial("one-run", 0.05, 0.03, repetitions=1), 0.10)
    [group] = result.groups
    assert group.run_df == 0 and group.run_sd_pct is None and group.request_sd_pct is not None
    text = _text(result)
    assert "run-to-run noise cannot be estimated from one run per control arm" in text
    assert "you need at least " in text


def test_run_to_run_noise_needs_more_repetitions() -> None:
    # The same request-to-request noise; one trial adds an 8 % run factor.
    quiet = power_trial(_trial("quiet", 0.0, 0.05), 0.10).groups[0]
    noisy = power_trial(_trial("noisy", 0.08, 0.05), 0.10).groups[0]
    assert quiet.run_sd_pct is not None and noisy.run_sd_pct is not None
    assert quiet.run_sd_pct < 2 < 5 < noisy.run_sd_pct
    assert 3 < quiet.request_sd_pct < 7 and 3 < noisy.request_sd_pct < 7  # type: ignore[operator]
    q, n = quiet.plans[0].repetitions, noisy.plans[0].repetitions
    assert q is not None and n is not None and n >= 2 * q
    # More requests per run shrink request noise, not run noise: the noisy trial still needs many runs.
    assert quiet.plans[2].repetitions == 2  # the floor
    assert noisy.plans[2].repetitions is not None and noisy.plans[2].repetitions >= 0.6 * n


@pytest.mark.parametrize(
    ("seed", "run_sd", "request_sd", "effect"),
    [
        (1, 0.05, 0.05, 0.03),
        (1, 0.05, 0.05, 0.05),
        (1, 0.05, 0.05, 0.10),
        (1, 0.05, 0.05, 0.20),
        # Run-heavy pilots, where the first guesses miss: the search must still land on the smallest R.
        (3, 0.08, 0.01, 0.05),
        (3, 0.08, 0.01, 0.08),
        (4, 0.08, 0.01, 0.05),
        (5, 0.08, 0.01, 0.08),
    ],
)
def test_a_plan_is_the_smallest_resolving_number_of_repetitions(seed: int, run_sd: float, request_sd: float, effect: float) -> None:
    """Recomputed from the documented seed: the planned R resolves the effect and R - 1 does not."""
    evidence = _trial(f"search-{seed}", run_sd, request_sd, seed=seed)
    [group] = power_trial(evidence, effect).groups
    noise = control_noise(evidence, 8192, 4)

    def detectable(r: int, requests: int) -> float:
        parts = ("evidence-kit/power/v1", evidence.trial.trial_id, "e2e_s", 8192, 4, requests)
        return detectable_from_se(standard_error(noise, r, requests, seed_for(*parts)))

    for plan in group.plans:
        m = plan.requests_per_run
        if plan.repetitions is None:
            assert detectable(50, m) > effect
            continue
        assert math.isclose(detectable(plan.repetitions, m) * 100, plan.detectable_pct)
        assert detectable(plan.repetitions, m) <= effect
        assert plan.repetitions == 2 or detectable(plan.repetitions - 1, m) > effect
    assert effect >= 0.2 or group.plans[0].repetitions > 2  # type: ignore[operator]  # the search had work to do


def test_plans_are_deterministic_and_monotone(reference_decision: Path) -> None:
    evidence = load_decision(reference_decision).trials[0]
    first, again = power_trial(evidence, 0.10), power_trial(evidence, 0.10)
    assert first == again
    five = power_trial(evidence, 0.05)
    for a, b in zip(first.groups, five.groups):
        reps = [p.repetitions for p in a.plans]
        assert all(r is not None for r in reps) and reps == sorted(reps, reverse=True)
        assert [p.requests_per_run for p in a.plans] == [4, 8, 16]
        assert b.plans[0].repetitions is None or b.plans[0].repetitions > a.plans[0].repetitions  # type: ignore[operator]
        for plan in a.plans:
            assert plan.detectable_pct <= 10 + 1e-9


@pytest.mark.parametrize(
    ("run_sd", "request_sd", "repetitions", "requests"), [(0.04, 0.06, 5, 4), (0.04, 0.06, 5, 16), (0.0, 0.05, 8, 4), (0.06, 0.01, 4, 4)]
)
def test_standard_error_matches_brute_force(run_sd: float, request_sd: float, repetitions: int, requests: int) -> None:
    """The resampled standard error of a pilot (20 runs of 8 per control arm) is the spread of the log ratio
    of pooled medians that brute-force simulation gives for the noise the pilot estimates, at other shapes too."""
    rng = np.random.default_rng(42)
    pilot = NoiseComponents([_lognormal_runs(rng, 20, 8, run_sd, request_sd) for _ in range(2)])
    predicted = standard_error(pilot, repetitions, requests, seed=7)
    between, within = math.sqrt(pilot.between), math.sqrt(pilot.within)

    def pooled_median() -> float:
        return float(np.median(np.concatenate(_lognormal_runs(rng, repetitions, requests, between, within))))

    truth = float(np.std([math.log(pooled_median() / pooled_median()) for _ in range(3000)]))
    assert abs(predicted / truth - 1) < 0.08, (predicted, truth)


def test_variance_components_are_unbiased_on_average() -> None:
    """Over many small pilots (6 runs of 4 per control arm) the estimated components average to the true ones."""
    rng = np.random.default_rng(3)
    pilots = [NoiseComponents([_lognormal_runs(rng, 6, 4, 0.04, 0.06) for _ in range(2)]) for _ in range(300)]
    assert abs(np.mean([p.between for p in pilots]) / 0.04**2 - 1) < 0.12
    assert abs(np.mean([p.within for p in pilots]) / 0.06**2 - 1) < 0.05


def test_a_small_pilot_still_shows_what_many_repetitions_buy(reference_decision: Path) -> None:
    """Without run-to-run noise the standard error falls as 1/sqrt(R), even projected from 24 pilot values
    (a resample's median must not stick to the gaps between them)."""
    evidence = load_decision(reference_decision).trials[0]
    noise = NoiseComponents(
        [
            [
                [r.e2e_s for r in arm.timed if r.input_nominal == 8192 and r.concurrency == 1 and r.run == run]
                for run in sorted({r.run for r in arm.timed})
            ]
            for arm in evidence.arms
            if arm.ref.role == "control"
        ]
    )
    assert noise.values == 24 and noise.between == 0
    ratio = standard_error(noise, 40, 4, seed=1) / standard_error(noise, 4, 4, seed=1)
    assert abs(ratio / math.sqrt(4 / 40) - 1) < 0.12, ratio


def test_controls_that_differ_beyond_their_noise_are_flagged() -> None:
    """The restored arm is the before arm scaled: flagged when the scale is beyond 1.96 standard errors of
    the comparison (the spread two controls show by noise alone), not at 1.5."""
    rng = np.random.default_rng(9)
    before = _lognormal_runs(rng, 6, 4, 0.02, 0.05)
    candidate = _lognormal_runs(rng, 6, 4, 0.02, 0.05)

    def group(factor: float):
        restored = [[v * factor for v in run] for run in before]
        runs = {"before": before, "candidate": candidate, "restored": restored}
        return power_trial(synthetic_trial(f"drift-{factor:.4f}", runs), 0.10).groups[0]

    steady = group(1.0)
    assert steady.predicted_pct is not None and not steady.drift_beyond_noise
    se = -math.log(1 - steady.predicted_pct / 100) / 2.8015852181
    assert not group(math.exp(1.5 * se)).drift_beyond_noise
    assert group(math.exp(2.5 * se)).drift_beyond_noise and group(math.exp(-2.5 * se)).drift_beyond_noise


def test_detectable_from_se() -> None:
    assert detectable_from_se(0.0) == 0.0
    # 2.80 standard errors on the log scale: se 0.0376 resolves a 10 % improvement.
    assert math.isclose(detectable_from_se(-math.log(0.9) / 2.8015852181), 0.10, rel_tol=1e-6)


def test_power_cli_answers_per_group(run_cli, reference_decision: Path) -> None:
    result = run_cli("power", reference_decision)
    assert result.code == 0, result.err
    analysis = analyze(load_decision(reference_decision))
    sections = result.out.split("\n\n")
    assert len(sections) == len(analysis.trials) == 2
    for trial, section in zip(analysis.trials, sections):
        assert section.startswith(f"{trial.trial_id}: ")
        for group in trial.groups:
            line = next(li for li in section.splitlines() if li.strip().startswith(f"{group.label}: to resolve"))
            assert "to resolve a 10% change with 95% confidence and 80% power you need about " in line
            assert f"(this data resolves {group.detectable_pct:.1f}%)" in line
    # The controls of ~6K/C4 disagree beyond their noise (the reference page's controls-disagree rows).
    assert result.out.count("the two controls differ by") == 2

    as_json = run_cli("power", reference_decision, "--json", "--effect", "0.05")
    assert as_json.code == 0
    doc = json.loads(as_json.out)
    assert doc["schema"] == "evidence-kit/power/v1" and math.isclose(doc["effect_pct"], 5.0)
    assert [t["trial_id"] for t in doc["trials"]] == ["cache-layout", "dflash"]
    for trial, analysed in zip(doc["trials"], analysis.trials):
        assert [g["label"] for g in trial["groups"]] == [g.label for g in analysed.groups]
        for group, analysed_group in zip(trial["groups"], analysed.groups):
            assert group["detectable_pct"] == analysed_group.detectable_pct
            assert [p["requests_per_run"] for p in group["plans"]] == [4, 8, 16]
    dflash = run_cli("power", reference_decision / "dflash").out
    assert dflash.startswith("dflash: ")
    # docs/cli.md shows one group of this output: it is what the command prints.
    section = (REPO / "docs" / "cli.md").read_text().split("## `evidence-kit power")[1].split("\n## ")[0]
    example = [line.strip() for line in section.splitlines() if line.startswith("    ~") or line.startswith("        ")]
    assert len(example) == 3 and set(example) <= {line.strip() for line in dflash.splitlines()}, example


def test_power_cli_bad_input(run_cli, reference_decision: Path, tmp_path: Path) -> None:
    missing = run_cli("power", tmp_path / "nope")
    assert missing.code == 2 and missing.out == ""
    assert missing.err.strip().splitlines() == [f"evidence-kit: {tmp_path / 'nope'}: no such file or folder"]
    (reference_decision / "dflash" / "trial.json").write_text("{\n")
    broken = run_cli("power", reference_decision)
    assert broken.code == 2 and broken.out == ""
    [line] = broken.err.strip().splitlines()
    assert line.startswith(f"evidence-kit: {reference_decision / 'dflash' / 'trial.json'}:")
    assert run_cli("power", reference_decision / "cache-layout", "--effect", "0").code == 2
    assert run_cli("power", reference_decision / "cache-layout", "--effect", "1").code == 2
    for value in ("nan", "inf", "-nan"):  # NaN compares false with every bound: FloatRange alone let it through
        result = run_cli("power", reference_decision / "cache-layout", "--effect", value)
        assert result.code == 2 and "Traceback" not in result.err and "--effect" in result.err, result.err


def test_synthetic_trial_is_what_the_analysis_reads() -> None:
    runs = {"before": [[1.0, 2.0], [3.0]], "candidate": [[1.5, 2.5], [3.5, 4.5]], "restored": [[2.0], [4.0, 6.0]]}
    evidence = synthetic_trial("synthetic", runs)
    [group] = analyze_trial(evidence).groups
    assert [group.pooled["e2e_s"][p].median for p in PHASES] == [2.0, 3.0, 4.0]
    assert evidence.trial.workload.repetitions == 2 and evidence.trial.workload.requests_per_run == 2
    with pytest.raises(ValueError, match="same, positive number of runs"):
        synthetic_trial("uneven", {**runs, "restored": [[1.0]]})


def test_the_text_says_what_the_pilot_cannot_tell() -> None:
    rng = np.random.default_rng(5)
    single = {p: _lognormal_runs(rng, 5, 1, 0.03, 0.05) for p in PHASES}
    text = _text(power_trial(synthetic_trial("single", single), 0.10))
    assert "repetitions of 1 request (" in text and "request-to-request not separable" in text
    assert "more requests per run do not help it" in text

    empty = {"before": [[]], "candidate": [[1.0, 2.0]], "restored": [[]]}
    [group] = power_trial(synthetic_trial("empty", empty), 0.10).groups
    assert group.plans == [] and group.control_requests == 0
    assert "no timed values in the control arms: nothing to plan from" in _text(power_trial(synthetic_trial("empty", empty), 0.10))

    zeros = {"before": [[0.0, 1.0, 1.1], [1.2, 0.0]], "candidate": [[1.0], [1.0]], "restored": [[1.0, 1.05], [0.0, 0.98]]}
    assert "3 values that are not positive were left out" in _text(power_trial(synthetic_trial("zeros", zeros), 0.10))

    wild = {p: _lognormal_runs(rng, 3, 4, 0.3, 0.5) for p in PHASES}
    text = _text(power_trial(synthetic_trial("wild", wild), 0.10))
    assert "you need more than 50 repetitions of 4 requests (50 resolve " in text
