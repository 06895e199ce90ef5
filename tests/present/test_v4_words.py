"""A statistics v4 page says what its rule keeps: Holm's family-wise rate, why a group is only likely, the
drift-corrected interval of a longer design, and the result card's error rates and smallest change."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.present import (
    comparison_headers,
    comparison_rows,
    finding_sentence,
    interval_level,
    rule_sentence,
    verdict_definitions,
    verdict_text,
)
from evidence_kit.present.decision_rows import trial_card_rows
from evidence_kit.present.verdict_meanings import SMALLEST_CHANGE_MEANING, detectable_sentence_v4
from evidence_kit.read import load_trial

FLAT = {g: (2.0, 2.0, 2.0) for g in GROUPS}


def _bundle(tmp_path: Path, e2e: dict, design: str = "ABA", **rule: object) -> Path:
    spec = {**REFERENCE_TRIALS["cache-layout"], "title": "v4 words", "e2e": e2e, "slots": tuple([1330579] * len(design))}
    return write_trial_bundle(tmp_path, "t", spec, design=design, rule=rule)


def _analysis(tmp_path: Path, e2e: dict, design: str = "ABA", **rule: object):
    return analyze(load_trial(_bundle(tmp_path, e2e, design, **rule)))


def _card(tmp_path: Path, **rule: object) -> dict[str, tuple[str, str]]:
    evidence = load_trial(_bundle(tmp_path, FLAT, **rule))
    return {name: (value, conditions) for name, value, conditions in trial_card_rows(evidence, analyze(evidence).trials[0])}


def test_the_rule_states_the_family_wise_rate_and_point_says_it_keeps_none(tmp_path: Path) -> None:
    bound = _analysis(tmp_path / "b", FLAT, statistics=4).trials[0]
    assert "Holm's step-down over the trial's 4 groups" in rule_sentence(bound) and "at most 2.5%" in rule_sentence(bound)
    point = _analysis(tmp_path / "p", FLAT, statistics=4, confidence="point").trials[0]
    assert "with no error control" in rule_sentence(point)
    v3 = _analysis(tmp_path / "3", FLAT).trials[0]
    assert "Statistics v4" not in rule_sentence(v3) and "Holm" not in rule_sentence(v3)
    # v3's point rule, the reference page's, is labelled as keeping no error rate too.
    assert "Confidence point (statistics v3): the point estimates alone decide, with no error control" in rule_sentence(v3)


def test_a_win_within_the_noise_names_the_launch_level_interval_under_v4(tmp_path: Path) -> None:
    # Controls 7.5 % apart: one A/B/A block's launch variance makes the point rule's win noise.
    trial = _analysis(tmp_path, {**FLAT, (8192, 1): (2.0, 1.75, 2.15)}, statistics=4, confidence="point").trials[0]
    noisy = [f for f in trial.findings if f.kind == "win-within-noise"]
    assert noisy, [f.kind for f in trial.findings]
    sentence = finding_sentence(noisy[0], trial.candidate_label, trial.rule.min_improvement_pct, interval_level(trial))
    assert "the launch-level 95% interval against" in sentence and "run-level" not in sentence


def test_a_point_win_whose_launch_interval_was_not_drawn_names_the_launch_level(tmp_path: Path) -> None:
    trial = _analysis(tmp_path, {**FLAT, (8192, 1): (2.0, 1.75, 2.0)}, statistics=4, confidence="point").trials[0]
    group = trial.groups[0]
    undrawn = [i.model_copy(update={"low": None, "high": None}) for i in group.intervals]
    noisy = group.model_copy(update={"intervals": undrawn, "verdict": group.verdict.model_copy(update={"within_noise": True})})
    assert verdict_text(noisy) == "win (point estimates only: no launch-level interval could be drawn)"


def test_a_likely_group_says_why_it_is_not_a_win(tmp_path: Path) -> None:
    trial = _analysis(tmp_path, {**FLAT, (8192, 1): (2.0, 1.75, 2.0)}, statistics=4).trials[0]
    assert comparison_rows(trial)[0][-1] == "likely, not resolved (an interval reaches past the threshold)"
    assert any(line.startswith("likely, not resolved: ") for line in verdict_definitions(trial))


def test_a_longer_design_shows_its_drift_corrected_interval_under_its_own_header(tmp_path: Path) -> None:
    trial = _analysis(tmp_path, {g: (2.0, 1.632, 2.08, 1.696, 2.16) for g in GROUPS}, design="ABABA", statistics=4).trials[0]
    headers = ["Group", *comparison_headers(trial)]
    assert "95% CI ratio vs drift-corrected" in headers
    assert all(len(row) == len(headers) for row in comparison_rows(trial))
    assert "against the drift-corrected control" in rule_sentence(trial)


def test_the_result_card_states_the_error_rates_and_the_smallest_change(tmp_path: Path) -> None:
    rows = _card(tmp_path / "4", statistics=4)
    assert rows["Error rates kept"][0] == "false promotion at most 2.5% per decision (Holm over 4 groups); 95% launch-level intervals"
    assert rows["Smallest resolvable change"][0].endswith("%") is False and " at ~" in rows["Smallest resolvable change"][0]
    assert rows["Smallest resolvable change"][1] == SMALLEST_CHANGE_MEANING and "power" not in rows["Smallest resolvable change"][0]
    assert "Error rates kept" not in _card(tmp_path / "3")  # a v3 card is the one it always was


def test_analyze_prints_each_verdict_words_meaning_under_v4_and_not_under_v3(tmp_path: Path) -> None:
    from evidence_kit.present.verdict_meanings import VERDICT_MEANINGS
    from evidence_kit.text_report import render_text

    text = render_text(_analysis(tmp_path / "4", FLAT, statistics=4))
    assert "Verdicts, the first that applies:" in text and "launch-level 95% interval" in text
    assert all(f"- {word}: {meaning}" in text for word, meaning in VERDICT_MEANINGS.items())
    assert "Verdicts, the first that applies:" not in render_text(_analysis(tmp_path / "3", FLAT))


def test_the_smallest_change_sentence_says_observed_and_not_a_power(tmp_path: Path) -> None:
    trial = _analysis(tmp_path, {g: (2.0, 1.5, 2.02, 1.52, 2.04) for g in GROUPS}, design="ABABA", statistics=4).trials[0]
    sentence = detectable_sentence_v4(trial)
    assert sentence.startswith("Smallest change this trial could resolve: an observed improvement of at least ")
    assert "against the drift-corrected control would have been called a win" in sentence and "strictest level over its 4 groups" in sentence
    assert "80% power" not in sentence and "that is not a power" in sentence
