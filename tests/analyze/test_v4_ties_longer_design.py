"""Statistics v4: runs that all took one time are no estimate of the noise in a longer design either.

In A/B/A such ties give no interval ("no spread is no estimate of the noise, not a certainty"); in A/B/A/B/A the
control blocks' least-squares line left round-off residuals (a block variance of 1.2e-32), and identical runs
made a zero-width interval, [0.80, 0.80], and a certain win (adv24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import flat, write_bundle


@pytest.mark.parametrize("design", ["ABA", "ABABA", "ABABABA", "ABBA"])
def test_identical_runs_in_every_block_give_no_interval_and_no_win(tmp_path: Path, design: str) -> None:
    values = [flat(1.6) if letter == "B" else flat(2.0) for letter in design]
    bundle = write_bundle(tmp_path, "t", design, values, rule={"min_improvement": 0.1, "statistics": 4})
    trial = analyze(load_trial(bundle)).trials[0]
    group = trial.groups[0]
    assert all(i.low is None and i.high is None for i in group.intervals), group.intervals
    assert not group.verdict.win and trial.outcome == "no-promotion"


def test_a_drifting_control_with_varied_runs_still_gets_its_interval(tmp_path: Path) -> None:
    def runs(value: float) -> dict:
        return {(8192, 1): [[value * (1 + 0.02 * r + 0.01 * i) for i in range(4)] for r in range(3)]}

    bundle = write_bundle(
        tmp_path, "t", "ABABA", [runs(2.0), runs(1.6), runs(2.1), runs(1.7), runs(2.15)], rule={"min_improvement": 0.1, "statistics": 4}
    )
    corrected = analyze(load_trial(bundle)).trials[0].groups[0].intervals[-1]
    assert corrected.control == "corrected" and corrected.low is not None and corrected.high is not None
    assert corrected.low < corrected.ratio < corrected.high  # type: ignore[operator]
