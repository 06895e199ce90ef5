"""Statistics v2 in words and rows: tails, guardrails, the smallest resolvable change, the verdict list and a
point-estimate win inside the noise, the same in the terminal report as on the pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.analyze import Analysis, analyze
from evidence_kit.present import (
    GUARDRAIL_HEADERS,
    TAIL_HEADERS,
    comparison_rows,
    detectable_sentence,
    guardrail_rows,
    tail_rows,
    threshold_labels,
    verdict_definitions,
)
from evidence_kit.read import load_decision
from evidence_kit.text_report import render_text

from ..guarded import write_guarded_decision


@pytest.fixture
def reference(reference_decision: Path) -> Analysis:
    return analyze(load_decision(reference_decision))


@pytest.fixture
def guarded(tmp_path: Path) -> Analysis:
    return analyze(load_decision(write_guarded_decision(tmp_path / "guarded")))


def _cells(text: str, first: str, *others: str) -> list[str]:
    """The cells of the text report's table line starting with ``first`` and holding each of ``others``."""
    line = next(line for line in text.splitlines() if line.startswith(f"| {first} ") and all(f" {o} " in line for o in others))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_tail_rows_are_the_run_level_p90_and_p99_intervals(reference: Analysis) -> None:
    layout = reference.trials[0]
    rows = tail_rows(layout)
    assert len(TAIL_HEADERS) == len(rows[0]) and len(rows) == 2 * len(layout.groups)
    assert rows[-2:] == [
        ["~25K/C4", "p90", "1.092", "1.025–1.165", "1.079", "1.014–1.148"],
        ["~25K/C4", "p99", "1.092", "1.050–1.137", "1.079", "1.044–1.116"],
    ]
    assert rows[0][3] == "0.985–1.116 (n.s.)"
    text = render_text(reference)
    for row in rows:
        assert _cells(text, row[0], row[1], row[3]) == row


def test_the_smallest_resolvable_change_is_said_per_group(reference: Analysis) -> None:
    assert detectable_sentence(reference.trials[0]) == (
        "Smallest resolvable change: differences under 8.65% (~6K/C1), 9.02% (~6K/C4), 8.12% (~25K/C1) and 9.02% "
        "(~25K/C4) are not resolvable with this data: 80% power at 95% confidence, from the wider of each group's two "
        "run-level intervals."
    )
    assert detectable_sentence(reference.trials[0]) in render_text(reference)


def test_the_threshold_lines_and_the_verdict_list_follow_the_rule(reference: Analysis) -> None:
    layout = reference.trials[0]
    assert threshold_labels(layout) == [(0.9, "10% faster"), (1.0, "no change"), (1.1, "10% slower")]
    assert verdict_definitions(layout)[0] == ("win: at least 10% faster than both controls, on the point estimates (the rule's confidence is point);")
    # The words read the analysis: another rule, other lines and words.
    layout.rule.min_improvement_pct, layout.rule.confidence = 5.0, "bound"
    layout.rule.threshold_low_ratio, layout.rule.threshold_high_ratio = 0.95, 1.05
    assert threshold_labels(layout) == [(0.95, "5% faster"), (1.0, "no change"), (1.05, "5% slower")]
    assert "at the conservative end of each run-level 95% interval" in verdict_definitions(layout)[0]
    assert [line.split(":")[0] for line in verdict_definitions(layout)] == [
        "win",
        "regression",
        "inconclusive, the controls disagree",
        "no-win",
        "inconclusive, unresolved",
    ]


def test_a_win_a_guardrail_breaks_is_not_promoted_and_says_which_and_by_how_much(guarded: Analysis) -> None:
    trial = guarded.trials[0]
    assert trial.wins == 2 and trial.outcome == "no-promotion"
    assert trial.blocked_by == ["guardrails breached at ~6K/C1, ~6K/C4, ~25K/C1, ~25K/C4"]
    rows = guardrail_rows(trial)
    assert len(rows) == 2 * len(trial.groups) and len(GUARDRAIL_HEADERS) == len(rows[0])
    assert rows[0] == [
        "p90 time to first token must not regress by more than 10%",
        "~6K/C1",
        "8.67% higher",
        "7.24% higher",
        "1.015–1.163",
        "1.006–1.143",
        "held",
    ]
    assert rows[1] == [
        "p90 time to first token must not regress by more than 10%",
        "~6K/C4",
        "23.28% higher",
        "37.62% higher",
        "1.152–1.319",
        "1.290–1.468",
        "BREACHED",
    ]
    assert rows[4][:4] == ["median output tokens must not change by more than 5%", "~6K/C1", "9.91% higher", "9.91% higher"]
    assert rows[4][-1] == "BREACHED (within the noise: an interval includes no change; it still blocks)"
    text = render_text(guarded)
    for row in rows:
        assert _cells(text, row[0], row[1]) == row
    assert "Cannot promote: guardrails breached at ~6K/C1, ~6K/C4, ~25K/C1, ~25K/C4." in text
    assert (
        "- At ~6K/C4 the guardrail 'p90 time to first token must not regress by more than 10%' is breached: the "
        "Layout candidate's p90 time to first token was 23.28% higher than the first control and 37.62% higher "
        "than the restored control. The candidate cannot be promoted."
    ) in text.splitlines()


def test_a_point_estimate_win_inside_the_noise_says_so_next_to_it(guarded: Analysis) -> None:
    trial = guarded.trials[0]
    noisy = next(row for row in comparison_rows(trial) if row[0] == "~25K/C1")
    assert noisy[1:3] == ["10.39% faster", "12.11% faster"]
    assert noisy[3:5] == ["0.683–1.113 (n.s.)", "0.638–1.125 (n.s.)"]
    assert noisy[-1] == "win (point estimates only: an interval includes no change); guardrail breached"
    clear = next(row for row in comparison_rows(trial) if row[0] == "~6K/C1")
    assert clear[-1] == "win; guardrail breached"  # a win the intervals resolve says nothing of noise
    text = render_text(guarded)
    assert _cells(text, "~25K", "1", "3.700")[-1] == noisy[-1]
    assert (
        "- At ~25K/C1 the Layout candidate was 10.39% and 12.11% faster than the two controls, but the run-level "
        "95% interval against the first and restored controls includes no change: a difference of this size is "
        "within the noise of this data."
    ) in text.splitlines()
    assert "differences under 6.91% (~6K/C1), 9.02% (~6K/C4), 34.83% (~25K/C1) and 9.02% (~25K/C4)" in text


def test_a_win_without_an_interval_says_none_could_be_drawn() -> None:
    from evidence_kit.model.findings import NoiseFinding, WithinNoise
    from evidence_kit.present import finding_sentence

    finding = NoiseFinding(
        kind="win-within-noise",
        group="~6K/C1",
        values=WithinNoise(improvement_vs_before_pct=20.0, improvement_vs_restored_pct=21.0, controls="", undrawn="before, restored"),
    )
    text = finding_sentence(finding, "Layout candidate")
    assert "includes no change" not in text
    assert "no run-level interval against the first and restored controls could be drawn" in text


def test_a_split_verdict_never_rounds_onto_the_threshold() -> None:
    from evidence_kit.model.findings import Improvements, SplitVerdictFinding
    from evidence_kit.present import finding_sentence

    finding = SplitVerdictFinding(
        kind="split-verdict", group="~6K/C4", values=Improvements(improvement_vs_before_pct=9.996, improvement_vs_restored_pct=14.55)
    )
    assert "but only 9.996% against the first control" in finding_sentence(finding, "C", 10.0)
    assert "but only 10.00% against" in finding_sentence(finding, "C")  # without the rule, as before
