"""Properties of statistics v4's smallest resolvable change and planner: pure functions, checked on arbitrary data.

The smallest change (``blocks.smallest_win``) is the rule's own boundary: the candidate's values moved so that its
improvement against the least favourable judged control is the stated figure make a win, 0.01 point less do not,
and the figure is the data's precision, not the candidate's level. The planner's pilot estimates do not depend
on units or on the order of a block's runs, and its simulation is seeded."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st

from evidence_kit.analyze.blocks import judged_against, launch_intervals, smallest_win
from evidence_kit.analyze.plan_v4 import PilotNoise, pilot_noise, world
from evidence_kit.analyze.simulate import Truth, arms_of, simulate_groups
from evidence_kit.analyze.stats import median
from evidence_kit.analyze.verdicts import verdict_v4
from evidence_kit.model.trial import DecisionRule

values = st.floats(min_value=0.5, max_value=2.0)
# Blocks of a few per cent of noise, so that most examples resolve some improvement (noisier ones state none).
close = st.floats(min_value=0.97, max_value=1.03)
block = st.lists(st.lists(close, min_size=1, max_size=4), min_size=2, max_size=5)
designs = st.sampled_from(["ABA", "ABABA", "ABBA", "ABABABA"])
confidences = st.sampled_from(["point", "significant", "bound"])


def _rule(confidence: str, threshold: float) -> DecisionRule:
    return DecisionRule.model_validate({"min_improvement": threshold, "statistics": 4, "confidence": confidence})


def _wins(design: str, runs: list, rule: DecisionRule, level: float) -> bool:
    arms = arms_of(design)
    names = judged_against(arms)
    intervals = [i for i in launch_intervals(arms, runs, median, "median", 1 - rule.min_improvement) if i.control in names]
    improvements = [None if i.ratio is None else (1 - i.ratio) * 100 for i in intervals]
    v = verdict_v4(improvements, intervals, rule, None, clears=(False, False), drift_flagged=False, guardrails_held=True)
    return v.win and (rule.confidence != "bound" or (v.p_value is not None and v.p_value <= level))


def _moved(design: str, runs: list, factor: float) -> list:
    return [[[v * factor for v in run] for run in r] if letter == "B" else r for letter, r in zip(design, runs)]


def _least_ratio(design: str, runs: list) -> float | None:
    arms = arms_of(design)
    names = judged_against(arms)
    ratios = [i.ratio for i in launch_intervals(arms, runs, median, "median", 0.9) if i.control in names]
    return None if any(r is None for r in ratios) else max(ratios)  # type: ignore[type-var]


@settings(max_examples=150, deadline=None)
@given(designs, st.data(), confidences, st.floats(min_value=0.03, max_value=0.3), st.sampled_from([0.025, 0.0125, 0.00625]))
def test_the_stated_smallest_change_is_a_win_and_a_step_less_is_not(design, data, confidence, threshold, level) -> None:
    runs = [data.draw(block) for _ in design]
    rule = _rule(confidence, threshold)
    stated = smallest_win(arms_of(design), runs, median, rule, level)
    worst = _least_ratio(design, runs)
    event(f"stated: {stated is not None}")
    if stated is None or worst is None:
        return
    assert stated >= threshold - 1e-12 and stated == round(stated, 4)  # whole steps of 0.01 %
    assert _wins(design, _moved(design, runs, (1 - stated - 1e-7) / worst), rule, level)
    below = stated - 1e-4 - 1e-7
    if below > 0:
        assert not _wins(design, _moved(design, runs, (1 - below) / worst), rule, level)


@settings(max_examples=100, deadline=None)
@given(designs, st.data(), st.sampled_from([0.5, 2.0, 0.25]))
def test_the_smallest_change_is_the_datas_precision_not_the_candidates_level(design, data, factor) -> None:
    runs = [data.draw(block) for _ in design]
    rule = _rule("bound", 0.1)
    stated = smallest_win(arms_of(design), runs, median, rule, 0.025)
    assert smallest_win(arms_of(design), _moved(design, runs, factor), median, rule, 0.025) == stated  # exact: a power of two
    units = [[[v * 1024 for v in run] for run in r] for r in runs]
    assert smallest_win(arms_of(design), units, median, rule, 0.025) == stated


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["ABABA", "ABABABA"]), st.data())
def test_the_pilots_noise_does_not_depend_on_units_or_the_order_of_runs(design, data) -> None:
    runs = [data.draw(st.lists(st.lists(values, min_size=2, max_size=4), min_size=2, max_size=4)) for _ in design]
    try:
        noise = pilot_noise(design, runs)
    except ValueError:
        return
    scaled = pilot_noise(design, [[[v * 4 for v in run] for run in r] for r in runs])
    shuffled = pilot_noise(design, [list(reversed(r)) for r in runs])
    for other in (scaled, shuffled):
        for name in ("run_var", "block_var", "launch_var", "request_var"):
            assert math.isclose(getattr(other, name), getattr(noise, name), rel_tol=1e-9, abs_tol=1e-15), name
        assert (other.run_df, other.launch_df, other.request_df, other.requests) == (noise.run_df, noise.launch_df, noise.request_df, noise.requests)


@given(
    st.floats(min_value=0.0, max_value=0.04),
    st.floats(min_value=0.0, max_value=0.04),
    st.floats(min_value=0.0, max_value=0.04),
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=10_000),
)
def test_every_simulated_world_is_a_world(request_var, run_var, block_var, df, seed) -> None:
    noise = PilotNoise(
        run_var=run_var, run_df=df, launch_var=block_var / 2, block_var=block_var, launch_df=df, requests=4, request_var=request_var, request_df=df
    )
    for carry in (True, False):
        truth = world(np.random.default_rng(seed), noise, -0.2, carry)
        assert truth.change == -0.2
        assert all(math.isfinite(sd) and sd >= 0 for sd in (truth.sd_run, truth.sd_request, truth.sd_launch))
    point = world(np.random.default_rng(seed), noise, 0.0, carry=False)
    assert math.isclose(point.sd_request**2, request_var, abs_tol=1e-15)


def test_a_simulated_trial_is_the_same_from_the_same_seed() -> None:
    rule = _rule("bound", 0.1)
    truths = [Truth(-0.2, 0.05, 0.1, 0.02), Truth(0.0, 0.05, 0.1, 0.02)]
    once, again = (
        [simulate_groups(np.random.default_rng(3), "ABABA", truths, rule, runs=3, requests=4) for _ in range(2)],
        [simulate_groups(np.random.default_rng(3), "ABABA", truths, rule, runs=3, requests=4) for _ in range(2)],
    )
    assert once == again


@given(st.lists(st.tuples(st.floats(min_value=1e-6, max_value=1.0), st.integers(min_value=1, max_value=200)), min_size=1, max_size=6))
def test_satterthwaites_count_lies_between_the_fewest_and_all_the_parts_degrees_of_freedom(parts) -> None:
    from evidence_kit.analyze.launch import _satterthwaite

    df = _satterthwaite(parts)
    assert min(d for _, d in parts) <= df <= sum(d for _, d in parts)


@given(st.integers(min_value=1, max_value=2000))
def test_the_chi_square_median_lies_below_its_degrees_of_freedom_and_above_one_less(df) -> None:
    from evidence_kit.analyze.launch import chi2_median

    assert max(0.0, df - 1) < chi2_median(df) < df
