"""A rule that reads the intervals says so when an arm holds fewer runs than a run-level interval needs
(bench/stat_coverage.py: the studentised default covers 93-97 % from 2 runs per arm; below 2 there is none)."""

from __future__ import annotations

import numpy as np
import pytest

from evidence_kit.analyze import analyze
from evidence_kit.analyze.findings import ADVISED_REPETITIONS
from evidence_kit.examples.synthetic import synthetic_trial
from evidence_kit.model import PHASES
from evidence_kit.text_report import render_text


def _runs(repetitions: int, seed: int = 7) -> dict[str, list[list[float]]]:
    rng = np.random.default_rng(seed)
    return {
        phase: [[float(5 * (0.8 if phase == "candidate" else 1.0) * rng.lognormal(0, 0.02)) for _ in range(4)] for _ in range(repetitions)]
        for phase in PHASES
    }


def _few(evidence):  # type: ignore[no-untyped-def]
    trial = analyze(evidence).trials[0]
    return [f for f in trial.findings if f.kind == "few-repetitions"]


@pytest.mark.parametrize("confidence", ["significant", "bound"])
def test_a_rule_reading_the_intervals_names_an_arm_too_few_runs_for_one(confidence: str) -> None:
    evidence = synthetic_trial("few", _runs(1), confidence=confidence)
    [few] = _few(evidence)
    assert (few.values.confidence, few.values.runs, few.values.advised) == (confidence, 1, ADVISED_REPETITIONS)
    analysis = analyze(evidence)
    assert analysis.trials[0].outcome == "no-promotion"  # no interval, so no win the rule could read off one
    text = render_text(analysis)
    assert f"The rule ({confidence}) reads the run-level intervals, and an arm holds only 1 run(s)" in text
    assert "evidence-kit power" in text


def test_enough_repetitions_or_the_point_rule_say_nothing() -> None:
    assert ADVISED_REPETITIONS == 2
    for repetitions in (ADVISED_REPETITIONS, 3):  # 3: the demo's and the reference page's shape, flagged before v3
        assert _few(synthetic_trial(f"enough-{repetitions}", _runs(repetitions), confidence="significant")) == []
    assert _few(synthetic_trial("point", _runs(1), confidence="point")) == []


def test_a_run_without_values_does_not_count() -> None:
    runs = _runs(ADVISED_REPETITIONS)
    runs["candidate"][1] = []  # every request of one candidate run failed or is missing
    [few] = _few(synthetic_trial("emptied", runs, confidence="significant"))
    assert few.values.runs == ADVISED_REPETITIONS - 1


def test_three_runs_of_a_clear_change_promote_under_significant() -> None:
    """A 20 % change with little noise, 3 runs a side: the studentised intervals resolve it, as the percentile
    ones did; the wider interval few runs call for costs no promotion here."""
    few = analyze(synthetic_trial("clear", _runs(3), confidence="significant")).trials[0]
    assert few.outcome == "promote" and few.verdicts["win"] == 1
