"""The decision page's result cards, one per trial, say what the analysis carries: whether the trial's
restoration held, how many requests a pooled entry holds, the operator's setup rows in the page's order."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.analyze import Analysis, analyze
from evidence_kit.model.evidence import DecisionEvidence
from evidence_kit.present import pooled_sizes, setup_rows, trial_card_rows
from evidence_kit.read import load_decision


@pytest.fixture
def evidence(reference_decision: Path) -> DecisionEvidence:
    return load_decision(reference_decision)


@pytest.fixture
def analysis(evidence: DecisionEvidence) -> Analysis:
    return analyze(evidence)


def _card(evidence: DecisionEvidence, analysis: Analysis, trial: int) -> dict[str, tuple[str, str]]:
    return {headline: (result, conditions) for headline, result, conditions in trial_card_rows(evidence.trials[trial], analysis.trials[trial])}


def test_restoration_row_words_the_trials_carried_verdict(evidence: DecisionEvidence, analysis: Analysis) -> None:
    assert _card(evidence, analysis, 1)["Original configuration restored"][0] == "yes"
    # The row words the carried verdict and decides nothing itself: change it, and it follows.
    analysis.trials[1].restored_ok = False
    assert _card(evidence, analysis, 1)["Original configuration restored"][0] == "not shown by the evidence"
    assert _card(evidence, analysis, 0)["Original configuration restored"][0] == "yes"


def test_each_trial_has_its_own_card_and_no_cell_joins_two_trials(evidence: DecisionEvidence, analysis: Analysis) -> None:
    card = _card(evidence, analysis, 0)
    assert card["Timed requests completed"] == ("144/144", "48 before, 48 candidate, 48 restored; no request failures")
    assert card["Material latency wins"][0] == "0/4 workload groups"
    assert card["Workload"] == (
        "~6K/~25K input, concurrency 1/4",
        "6,065–6,068 and 25,279–25,281 actual input tokens, temperature 0, 4,096-token output cap",
    )
    analysis.trials[0].timed_failed = 2
    analysis.trials[0].groups_total = 5
    card = _card(evidence, analysis, 0)
    assert "48 before, 48 candidate, 48 restored; 2 failed requests" in card["Timed requests completed"][1]
    assert card["Material latency wins"][0] == "0/5 workload groups"
    assert _card(evidence, analysis, 1)["Material latency wins"][0] == "0/4 workload groups"
    for trial in (0, 1):
        assert not any("; 0/" in cell or "in each trial" in cell for row in _card(evidence, analysis, trial).values() for cell in row)


def test_pooled_sizes_say_one_number_or_a_range(analysis: Analysis) -> None:
    assert pooled_sizes(analysis.decision) == "12"
    analysis.decision.pooled_n_min = 11
    assert pooled_sizes(analysis.decision) == "11 to 12"


def test_setup_rows_match_keys_however_the_operator_spells_them(reference_decision: Path) -> None:
    path = reference_decision / "decision.toml"
    path.write_text(
        path.read_text().replace(
            "[narrative]", '[setup]\nHardware = "Two toy GPUs"\n"Measurement path" = "direct"\nmodel = "private target"\n\n[narrative]'
        )
    )
    evidence = load_decision(reference_decision)
    rows = setup_rows(evidence, analyze(evidence), [])
    names = [name for name, _ in rows]
    assert names[:3] == ["Model", "Hardware", "Measurement path"]
    assert names.count("Model") == 1 and dict(rows)["Model"] == "private target"


def test_an_unnamed_model_is_withheld_or_not_recorded(reference_decision: Path) -> None:
    evidence = load_decision(reference_decision)
    analysis = analyze(evidence)
    assert dict(setup_rows(evidence, analysis, ["endpoint", "model"]))["Model"] == ("Withheld by redaction (classes withheld: endpoint, model)")
    assert dict(setup_rows(evidence, analysis, []))["Model"] == "Not recorded in decision.toml"
