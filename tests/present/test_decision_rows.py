"""The decision page's result card says what the analysis carries: which trials' restoration held,
how many requests a pooled entry holds, the operator's setup rows in the page's order."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.analyze import Analysis, analyze
from evidence_kit.present import headline_rows, pooled_sizes, setup_rows
from evidence_kit.read import load_decision


@pytest.fixture
def analysis(reference_decision: Path) -> Analysis:
    return analyze(load_decision(reference_decision))


def _headline(analysis: Analysis, name: str) -> str:
    return next(result for headline, result, _ in headline_rows(analysis) if headline == name)


def test_restoration_row_names_the_trials_whose_restoration_held(analysis: Analysis) -> None:
    assert _headline(analysis, "Original configuration restored") == "Both trials"
    # The row words the carried verdicts and decides nothing itself: change them, and it follows.
    analysis.trials[1].restored_ok = analysis.decision.restored_ok = False
    assert _headline(analysis, "Original configuration restored") == "cache-layout"
    analysis.trials[0].restored_ok = False
    assert _headline(analysis, "Original configuration restored") == "Not shown by the evidence"


def test_headline_counts_come_from_the_analysis(analysis: Analysis) -> None:
    rows = {headline: (result, conditions) for headline, result, conditions in headline_rows(analysis)}
    assert rows["Timed requests completed"] == ("144/144 in each trial", "48 before, 48 candidate, 48 restored; no request failures")
    assert rows["Material latency wins"][0] == "0/4 workload groups in each trial"
    analysis.trials[0].timed_failed = 2
    analysis.trials[0].groups_total = 5
    rows = {headline: (result, conditions) for headline, result, conditions in headline_rows(analysis)}
    assert "48 before, 48 candidate, 48 restored; 2 failed requests" in rows["Timed requests completed"][1]
    assert rows["Material latency wins"][0] == "0/5 workload groups; 0/4 workload groups"


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
