"""The analysis engine reproduces every figure the reference decision page states."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.present import faster_slower, finding_sentence, percent, signed_percent
from evidence_kit.read import load_decision

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _trial(analysis, trial_id):
    return next(t for t in analysis.trials if t.trial_id == trial_id)


def _group(trial, label):
    return next(g for g in trial.groups if g.label == label)


def test_every_reference_figure(reference_decision: Path) -> None:
    analysis = analyze(load_decision(reference_decision))
    assert analysis.decision.outcome == "no-promotion"
    layout, dflash = _trial(analysis, "cache-layout"), _trial(analysis, "dflash")
    for trial in (layout, dflash):
        # "Timed requests completed 144/144 in each trial; 48 before, 48 candidate, 48 restored"
        assert (trial.timed_ok, trial.timed_planned) == (144, 144)
        assert [(a.timed_ok, a.timed_planned) for a in trial.arms] == [(48, 48)] * 3
        assert trial.failures == []
        # "Material latency wins 0/4 workload groups in each trial"
        assert (trial.wins, len(trial.groups)) == (0, 4)
        assert trial.outcome == "no-promotion"
    # "All 72 timed batches across the two experiments reconciled"
    assert sum(t.runs_reconciled for t in analysis.trials) == 72
    assert sum(t.runs_total for t in analysis.trials) == 72
    # Token slots: +38.60 % and −40.63 %.
    assert signed_percent(layout.slots.change_pct) == "+38.60%"
    assert signed_percent(dflash.slots.change_pct) == "\u221240.63%"
    assert (layout.slots.original, layout.slots.candidate) == (1330579, 1844162)
    assert dflash.slots.candidate == 789904 and dflash.slots.restored_matches_original
    # The published medians, as published.
    rows = {g.label: [g.pooled["e2e_s"][p].median for p in ("before", "candidate", "restored")] for g in layout.groups}
    assert rows == {
        "~6K/C1": [1.735, 1.819, 1.761],
        "~6K/C4": [5.222, 4.958, 4.672],
        "~25K/C1": [4.129, 4.107, 4.210],
        "~25K/C4": [11.355, 12.404, 11.494],
    }
    # "At ~25K/C4 the layout candidate was 9.25% slower ... and 7.92% slower" (9.24 % from the published medians).
    c = _group(layout, "~25K/C4").comparisons["e2e_s"]
    assert [faster_slower(x.change_pct) for x in c] == ["9.24% slower", "7.92% slower"]
    # "The ~6K/C4 result improved 14.55% against the restored control but only 1.96% against the first."
    g = _group(dflash, "~6K/C4")
    assert [percent(x.improvement_pct) for x in g.comparisons["e2e_s"]] == ["1.96%", "14.55%"]
    assert g.verdict.split and not g.verdict.win
    assert (g.verdict.clears_before, g.verdict.clears_restored) == (False, True)
    # "The tables pool 12 request timings per entry"; "Original configuration restored: Both trials".
    for trial in (layout, dflash):
        assert (trial.pooled_n_min, trial.pooled_n_max, trial.groups_total, trial.timed_failed) == (12, 12, 4, 0)
        assert trial.restored_ok
    d = analysis.decision
    assert (d.timed_ok, d.timed_planned, d.pooled_n_min, d.pooled_n_max) == (288, 288, 12, 12)
    assert d.restored_ok and d.simulated


def test_notable_rows_are_called_out_by_name(reference_decision: Path) -> None:
    analysis = analyze(load_decision(reference_decision))
    layout, dflash = _trial(analysis, "cache-layout"), _trial(analysis, "dflash")
    split = [f for f in dflash.findings if f.kind == "split-verdict"]
    assert [f.group for f in split] == ["~6K/C4"]
    assert finding_sentence(split[0], dflash.candidate_label) == (
        "The ~6K/C4 result improved 14.55% against the restored control but only 1.96% against the "
        "first control. It therefore fails the predeclared requirement to improve against both."
    )
    regression = [f for f in layout.findings if f.kind == "regression"]
    assert [f.group for f in regression] == ["~25K/C4"]
    assert "9.24% slower than the first control and 7.92% slower than the restored control" in finding_sentence(regression[0], layout.candidate_label)
    # Control drift: the DFlash ~6K/C4 controls disagree by 14.74 %.
    drift = [f for f in dflash.findings if f.kind == "control-drift"]
    assert [(f.group, percent(f.values.drift_pct)) for f in drift] == [("~6K/C4", "14.74%")]


def test_input_token_ranges_and_labels(reference_decision: Path) -> None:
    trial = analyze(load_decision(reference_decision)).trials[0]
    ranges = {(g.input_label, g.input_tokens_min, g.input_tokens_max) for g in trial.groups}
    assert ranges == {("~6K", 6065, 6068), ("~25K", 25279, 25281)}


def test_intervals_are_deterministic_and_say_when_resolvable(reference_decision: Path) -> None:
    first = analyze(load_decision(reference_decision))
    second = analyze(load_decision(reference_decision))
    assert first.model_dump() == second.model_dump()
    g = _group(_trial(first, "cache-layout"), "~25K/C4")
    for interval in g.intervals:
        assert interval.low <= interval.ratio <= interval.high
    # 9 % slower with twelve samples a side is resolvable; the 0.5 % row (~25K/C1) is not.
    assert all(i.resolvable for i in g.intervals)
    assert not any(i.resolvable for i in _group(_trial(first, "cache-layout"), "~25K/C1").intervals)


def test_cli_text_matches_golden(reference_decision: Path, run_cli) -> None:
    result = run_cli("analyze", reference_decision)
    assert result.code == 0, result.err
    golden = GOLDEN / "analyze-reference.txt"
    assert result.out == golden.read_text(), "regenerate with: evidence-kit analyze <reference> > tests/golden/analyze-reference.txt"


def test_cli_json_is_stable_and_complete(reference_decision: Path, run_cli) -> None:
    first = run_cli("analyze", "--json", reference_decision)
    second = run_cli("analyze", "--json", reference_decision)
    assert first.code == 0 and first.out == second.out
    doc = json.loads(first.out)
    assert doc["schema"] == "evidence-kit/analysis/v2"
    assert [t["trial_id"] for t in doc["trials"]] == ["cache-layout", "dflash"]
    layout = doc["trials"][0]
    assert len(layout["runs"]) == 36  # 3 arms x 3 repetitions x 4 groups, each with p50/p90/p99
    assert set(layout["runs"][0]["percentiles"]["e2e_s"]) == {"p50", "p90", "p99"}
    assert all(len(a["sha256"]) == 64 for a in layout["arms"])


def test_single_trial_bundle(reference_decision: Path, run_cli) -> None:
    result = run_cli("analyze", reference_decision / "dflash")
    assert result.code == 0
    assert "0/4 workload groups" in result.out and "DFlash2 K3" in result.out
