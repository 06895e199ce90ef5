"""Statistics v4: a win means the whole interval clears the threshold, one error budget per decision, the
launch as the unit; v3 trials analyse exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analysis_json, analyze
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.model.trial import DecisionRule
from evidence_kit.read import load_trial

FLAT = {g: (2.0, 2.0, 2.0) for g in GROUPS}


def _trial(tmp_path: Path, e2e: dict, design: str = "ABA", **rule: object):
    slots = tuple([1330579] * len(design))
    spec = {**REFERENCE_TRIALS["cache-layout"], "title": "v4 test", "e2e": e2e, "slots": slots}
    return analyze(load_trial(write_trial_bundle(tmp_path, "t", spec, design=design, rule=rule)))


def test_statistics_4_defaults_to_bound_and_keeps_a_declared_confidence() -> None:
    assert DecisionRule.model_validate({"min_improvement": 0.1, "statistics": 4}).confidence == "bound"
    assert DecisionRule.model_validate({"min_improvement": 0.1, "statistics": 4, "confidence": "point"}).confidence == "point"
    assert DecisionRule.model_validate({"min_improvement": 0.1}).confidence == "point"  # v3's default stays


def test_a_point_estimate_past_the_threshold_with_an_unresolved_interval_is_likely_never_a_win(tmp_path: Path) -> None:
    e2e = {**FLAT, (8192, 1): (2.0, 1.75, 2.0)}  # 12.5 % faster, its interval reaching past 0.90
    trial = _trial(tmp_path, e2e, statistics=4).trials[0]
    group = trial.groups[0]
    assert group.verdict.point_win and (group.verdict.verdict, group.verdict.reason) == ("likely", "not-resolved")
    assert not group.verdict.win and trial.outcome == "no-promotion"
    assert group.intervals[0].high is not None and group.intervals[0].high > 0.9
    assert trial.verdicts == {"win": 0, "likely": 1, "no-win": 3, "regression": 0, "inconclusive": 0}


def test_the_same_data_wins_under_v3_point(tmp_path: Path) -> None:
    e2e = {**FLAT, (8192, 1): (2.0, 1.75, 2.0)}
    trial = _trial(tmp_path, e2e).trials[0]
    assert trial.groups[0].verdict.verdict == "win" and trial.outcome == "promote"


def test_a_v3_document_holds_none_of_v4s_fields(tmp_path: Path) -> None:
    doc = json.loads(analysis_json(_trial(tmp_path, FLAT)))
    trial = doc["trials"][0]
    assert "likely" not in trial["verdicts"] and "statistics" not in trial["rule"] and "family_alpha_pct" not in trial["rule"]
    assert all("p_value" not in g["verdict"] and "df" not in g["intervals"][0] for g in trial["groups"])
    assert doc["definitions"]["version"] == "evidence-kit/statistics/v3"


def test_a_v4_document_states_its_version_its_family_rate_and_its_p_values(tmp_path: Path) -> None:
    doc = json.loads(analysis_json(_trial(tmp_path, {g: (2.0, 1.6, 2.0) for g in GROUPS}, statistics=4)))
    trial = doc["trials"][0]
    assert doc["definitions"]["version"] == "evidence-kit/statistics/v4"
    assert (trial["rule"]["statistics"], trial["rule"]["family_alpha_pct"], trial["rule"]["family_groups"]) == (4, 2.5, 4)
    assert trial["outcome"] == "promote" and trial["verdicts"]["win"] == 4
    # Holm's levels: the four equal p-values are tested at 2.5 % / 4, / 3, / 2 and / 1.
    assert sorted(g["verdict"]["tested_at"] for g in trial["groups"]) == [0.025 / 4, 0.025 / 3, 0.025 / 2, 0.025]
    assert all(g["intervals"][0]["method"] == "launch-t" and g["intervals"][0]["df"] >= 1 for g in trial["groups"])


def test_holm_turns_a_win_into_likely_when_the_family_does_not_admit_it(tmp_path: Path) -> None:
    # One group whose p-value clears 2.5 % alone but not 2.5 % / 4, next to three flat groups.
    for faster in (1.72, 1.71, 1.70, 1.69, 1.68, 1.67, 1.66):
        e2e = {**FLAT, (8192, 1): (2.0, faster, 2.0)}
        group = _trial(tmp_path / str(faster), e2e, statistics=4).trials[0].groups[0]
        p = group.verdict.p_value
        assert p is not None
        if 0.025 / 4 < p <= 0.025:
            assert group.intervals[0].high is not None and group.intervals[0].high <= 0.9  # alone it would win
            assert (group.verdict.verdict, group.verdict.reason, group.verdict.tested_at) == ("likely", "not-admitted", 0.025 / 4)
            return
    raise AssertionError("no candidate speed put the p-value between the family's levels")


def test_a_longer_design_is_judged_on_the_drift_corrected_control(tmp_path: Path) -> None:
    # The control drifts 2 % per arm; against the corrected control the candidate is 20 % faster throughout.
    e2e = {g: (2.0, 1.632, 2.08, 1.696, 2.16) for g in GROUPS}
    trial = _trial(tmp_path, e2e, design="ABABA", statistics=4).trials[0]
    group = trial.groups[0]
    assert [i.control for i in group.intervals] == ["before", "restored", "corrected"]
    corrected = group.intervals[2]
    assert corrected.ratio is not None and abs(corrected.ratio - 0.8) < 0.01
    assert group.verdict.p_value == corrected.p_value and group.verdict.verdict == "win"


def test_a_decision_shares_one_budget_over_its_trials(tmp_path: Path) -> None:
    from evidence_kit.analyze.trial import analyze_trial

    evidence = load_trial(write_trial_bundle(tmp_path, "t", {**REFERENCE_TRIALS["cache-layout"], "e2e": FLAT}, rule={"statistics": 4}))
    alone, shared = analyze_trial(evidence), analyze_trial(evidence, decision_trials=2)
    assert [g.verdict.tested_at for g in shared.groups] == [level / 2 for level in (g.verdict.tested_at for g in alone.groups)]  # type: ignore[operator]
    assert shared.rule.decision_trials == 2


def test_the_smallest_change_is_stated_at_the_decisions_share_of_the_budget(tmp_path: Path) -> None:
    # The figure is a win at Holm's strictest level, 2.5 % / (groups x trials): a decision of two trials asks
    # each for more, never less.
    from evidence_kit.analyze.trial import analyze_trial

    e2e = {g: (2.0, 1.5, 2.04, 1.52, 2.06) for g in FLAT}
    spec = {**REFERENCE_TRIALS["cache-layout"], "e2e": e2e, "slots": tuple([1330579] * 5)}
    evidence = load_trial(write_trial_bundle(tmp_path, "t", spec, design="ABABA", rule={"statistics": 4}))
    alone, shared = analyze_trial(evidence), analyze_trial(evidence, decision_trials=2)
    pairs = [(a.detectable_pct, s.detectable_pct) for a, s in zip(alone.groups, shared.groups)]
    assert all(a is not None and s is not None for a, s in pairs)
    assert all(s > a for a, s in pairs), pairs  # type: ignore[operator]
