"""The decision page's first box: promote, retain or inconclusive, and the one reason, read off the analysis
(outcome, wins, verdicts, blocked_by, incomplete findings) and deciding nothing the analysis did not."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.analyze import Analysis, analyze
from evidence_kit.model.findings import ArmIncomplete, IncompleteFinding
from evidence_kit.present import OUTCOME_BOXES, decision_outcome, incomplete_sentences, outcome_reason, trial_outcome
from evidence_kit.read import load_decision


@pytest.fixture
def analysis(reference_decision: Path) -> Analysis:
    return analyze(load_decision(reference_decision))


def test_a_trial_with_groups_decided_against_the_candidate_retains(analysis: Analysis) -> None:
    layout = analysis.trials[0]
    assert layout.verdicts == {"win": 0, "no-win": 2, "regression": 1, "inconclusive": 1}
    assert trial_outcome(layout) == "retain" and decision_outcome(analysis) == "retain"
    assert outcome_reason(layout) == "0/4 groups won (2 no-win, 1 regression); the rule promotes only when one group wins, so no promotion."
    assert OUTCOME_BOXES["retain"] == ("failure", "Retain the original configuration")


def test_groups_that_won_but_a_guardrail_breached_say_so_in_one_reason(analysis: Analysis) -> None:
    trial = analysis.trials[1]
    trial.wins, trial.verdicts = 3, {"win": 3, "no-win": 1, "regression": 0, "inconclusive": 0}
    trial.blocked_by = ["guardrails breached at ~25K/C4"]
    assert trial_outcome(trial) == "retain"
    assert outcome_reason(trial) == "3/4 groups won but guardrails breached at ~25K/C4, so no promotion."
    trial.blocked_by.append("failed gates: candidate:smoke")
    assert outcome_reason(trial).endswith("so no promotion (and 1 more reason, in its results).")


def test_a_trial_whose_data_resolve_no_group_is_inconclusive(analysis: Analysis) -> None:
    for trial in analysis.trials:
        trial.verdicts = {"win": 0, "no-win": 0, "regression": 0, "inconclusive": 4}
    assert [trial_outcome(t) for t in analysis.trials] == ["inconclusive", "inconclusive"]
    assert decision_outcome(analysis) == "inconclusive"
    assert outcome_reason(analysis.trials[0]).startswith("0/4 groups won; all are unresolved (4 inconclusive: ")
    # A point estimate past the threshold whose interval is not ("likely") is unresolved too, never decided against.
    analysis.trials[0].verdicts = {"win": 1, "likely": 2, "no-win": 0, "regression": 0, "inconclusive": 1}
    analysis.trials[0].wins = 1
    assert trial_outcome(analysis.trials[0]) == "inconclusive"
    assert outcome_reason(analysis.trials[0]).startswith("1/4 groups won; the others are unresolved (2 likely, 1 inconclusive: ")
    # One trial that decided against its candidate makes the decision a retain, not inconclusive.
    analysis.trials[1].verdicts = {"win": 0, "no-win": 1, "regression": 0, "inconclusive": 3}
    assert decision_outcome(analysis) == "retain"


def test_an_incomplete_trial_is_never_inconclusive_and_its_warning_names_the_arm(analysis: Analysis) -> None:
    trial = analysis.trials[0]
    trial.verdicts = {"win": 0, "no-win": 0, "regression": 0, "inconclusive": 4}
    values = ArmIncomplete(phase="candidate", block=None, completed=0, planned=48, groups=["~6K/C1"], groups_total=4)
    trial.findings.insert(0, IncompleteFinding(kind="incomplete", values=values))
    assert trial_outcome(trial) == "retain"
    assert "the trial is incomplete" in outcome_reason(trial)
    assert incomplete_sentences(trial) == [
        "The trial is incomplete: the candidate arm completed no timed request in 1 of 4 groups (~6K/C1), which have no comparison. "
        "The candidate cannot be promoted."
    ]
    assert incomplete_sentences(analysis.trials[1]) == []


def test_a_promoting_trial_promotes_the_decision(analysis: Analysis) -> None:
    trial = analysis.trials[1]
    trial.outcome, trial.wins = "promote", 1
    analysis.decision.outcome = "promote"
    assert trial_outcome(trial) == "promote" and decision_outcome(analysis) == "promote"
    assert outcome_reason(trial) == "1/4 groups won, the rule promotes when one group wins, and nothing blocks promotion."
