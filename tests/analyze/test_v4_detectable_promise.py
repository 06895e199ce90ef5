"""Statistics v4's "smallest change this trial could resolve": a true improvement that large should be called a
win with the 80 % power the result card states (issue 24, point 6).

adv24 measured it through ``analyze`` on fresh A/B/A bundles (one group, 10 runs of 4 requests, lognormal run
5 %, request 10 % and launch 3 % noise): at the median stated change the rule won far less often than 80 %
(44 of 80, 55 %, in the test below; 4-group trials 38 % [34, 43] of 400 groups). ``detectable_v4`` scales the observed half-width by
``(t_0.975 + t_0.80) / t_0.975`` as though the launch variance (1 degree of freedom in A/B/A) were known, and
ignores Holm's level over the groups; the card over-promises."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import numpy as np
import pytest

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import write_bundle

G = (8192, 1)


def _arm(rng: np.random.Generator, scale: float, runs: int = 10, requests: int = 4) -> dict:
    launch = math.exp(0.03 * rng.standard_normal())
    effects = np.exp(0.05 * rng.standard_normal(runs))
    values = 2.0 * scale * launch * effects[:, None] * np.exp(0.10 * rng.standard_normal((runs, requests)))
    return {G: [[round(float(v), 4) for v in run] for run in values]}


def _groups(tmp_path: Path, change: float, trials: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for n in range(trials):
        arms = [_arm(rng, 1.0), _arm(rng, 1 + change), _arm(rng, 1.0)]
        bundle = write_bundle(tmp_path / f"{seed}-{n}", "t", "ABA", arms, rule={"min_improvement": 0.1, "statistics": 4})
        out.append(analyze(load_trial(bundle)).trials[0].groups[0])
    return out


@pytest.mark.xfail(
    strict=True, reason="adv24: detectable_v4 treats the 1-degree launch variance as known; at the stated change the rule wins 55 %, not 80 %"
)
def test_at_the_stated_smallest_resolvable_change_the_rule_wins_with_the_stated_power(tmp_path: Path) -> None:
    stated = [g.detectable_pct for g in _groups(tmp_path, -0.20, 30, 1) if g.detectable_pct is not None]
    median = statistics.median(stated)
    assert median < 100  # a latency cannot improve by 100 % or more
    wins = sum(g.verdict.win for g in _groups(tmp_path, -median / 100, 80, 2))
    assert wins / 80 >= 0.70  # 80 % promised; 0.70 leaves room for 80 trials' sampling error
