"""A rule that reads the intervals says so when an arm holds fewer runs than the intervals were measured
to need (bench/stat_coverage.py: 91-92 % coverage of a 95 % interval at 3 runs of mostly run-to-run noise)."""

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
    return {phase: [[float(5 * (0.8 if phase == "candidate" else 1.0) * rng.lognormal(0, 0.02)) for _ in range(4)]
                    for _ in range(repetitions)] for phase in PHASES}


def _few(evidence):  # type: ignore[no-untyped-def]
    trial = analyze(evidence).trials[0]
    return [f for f in trial.findings if f.kind == "few-repetitions"]


@pytest.mark.parametrize("confidence", ["significant", "bound"])
def test_a_rule_reading_the_intervals_names_too_few_repetitions(confidence: str) -> None:
    evidence = synthetic_trial("few", _runs(3), confidence=confidence)
    [few] = _few(evidence)
    assert (few.values.confidence, few.values.runs, few.values.advised) == (confidence, 3, ADVISED_REPETITIONS)
    text = render_text(analyze(evidence))
    assert f"The rule ({confidence}) reads the run-level intervals, and an arm holds only 3 run(s)" in text
    assert "evidence-kit power" in text


def test_enough_repetitions_or_the_point_rule_say_nothing() -> None:
    assert _few(synthetic_trial("enough", _runs(ADVISED_REPETITIONS), confidence="significant")) == []
    assert _few(synthetic_trial("point", _runs(3), confidence="point")) == []


def test_a_run_without_values_does_not_count() -> None:
    runs = _runs(ADVISED_REPETITIONS)
    runs["candidate"][2] = []  # every request of one candidate run failed or is missing
    [few] = _few(synthetic_trial("emptied", runs, confidence="significant"))
    assert few.values.runs == ADVISED_REPETITIONS - 1


def test_the_finding_does_not_change_the_verdicts() -> None:
    """It is a caution beside the verdicts, not another rule: the groups' verdicts and the outcome are what
    they are without it."""
    few = analyze(synthetic_trial("few", _runs(3), confidence="significant")).trials[0]
    assert few.outcome == "promote" and few.verdicts["win"] == 1
