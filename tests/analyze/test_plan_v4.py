"""Statistics v4's planner: it simulates the rule itself, and refuses a pilot that cannot estimate the launch noise."""

from __future__ import annotations

import numpy as np
import pytest

from evidence_kit.analyze.plan_v4 import PilotNoise, PlanRefused, pilot_noise, plan_design
from evidence_kit.analyze.simulate import Truth, _group_runs, arms_of
from evidence_kit.model.trial import DecisionRule

RULE = DecisionRule.model_validate({"min_improvement": 0.10, "statistics": 4})


def _pilot(design: str, seed: int = 3) -> list:
    return _group_runs(np.random.default_rng(seed), arms_of(design), Truth(0.0, 0.05, 0.05, 0.02), 3, 4)


def test_an_aba_pilot_is_refused_naming_the_designs_that_can_estimate_the_launch_noise() -> None:
    with pytest.raises(PlanRefused, match=r"A/B/A design gives the launch-to-launch noise 1 degree\(s\) of freedom .* A/B/A/B/A"):
        pilot_noise("ABA", _pilot("ABA"))


def test_a_longer_pilot_gives_the_launch_noise_its_degrees_of_freedom() -> None:
    noise = pilot_noise("ABABA", _pilot("ABABA"))
    assert (noise.launch_df, noise.run_df, noise.requests) == (2, 10, 4)


def test_the_plan_reaches_the_power_it_prints_and_fewer_runs_do_not() -> None:
    noise = PilotNoise(run_var=0.05**2, run_df=40, launch_var=0.0, block_var=0.05**2 / 3, launch_df=40, requests=1)
    plan = plan_design(noise, "ABABABA", RULE, 0.20, groups=1, trials=120, seed=1)
    assert plan.runs is not None and plan.planned_power is not None and plan.planned_power >= 0.8
    assert plan.achieved_power is not None and plan.achieved_power >= 0.7  # a fresh simulation, 120 trials
    if plan.runs > 2:
        fewer = plan_design(noise, "ABABABA", RULE, 0.20, groups=1, trials=120, seed=1)
        assert fewer.runs == plan.runs  # the same seed plans the same


def test_an_effect_inside_the_threshold_is_never_planned() -> None:
    noise = PilotNoise(run_var=0.02**2, run_df=40, launch_var=0.0, block_var=0.02**2 / 3, launch_df=40, requests=1)
    assert plan_design(noise, "ABABA", RULE, 0.08, groups=1, trials=60, seed=2).runs is None
