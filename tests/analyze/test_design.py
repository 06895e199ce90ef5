"""Designs that correct drift: every block's median, the control's linear drift, the candidate against the
drift-corrected control and each control block, checked against figures computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.analyze.design import linear_fit
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.read import load_trial

EXACT = {"rel": 1e-12}


def _trial(tmp_path: Path, design: str, medians: tuple[float, ...], slots: tuple[int, ...] | None = None):
    """Analyse a bundle whose every group has ``medians`` (one per arm, in run order) as its E2E block medians."""
    spec = {
        **REFERENCE_TRIALS["cache-layout"],
        "title": f"{design} test",
        "e2e": {g: medians for g in GROUPS},
        "slots": slots or tuple(100 if letter == "A" else 200 for letter in design),
    }
    bundle = write_trial_bundle(tmp_path / design, "t", spec, design=design)
    return analyze(load_trial(bundle)).trials[0], bundle


def test_a_b_a_b_a_by_hand(tmp_path: Path) -> None:
    # Controls 2.0, 2.1, 2.3 s at seq 1, 3, 5; the candidate 1.8 s in both its blocks (seq 2 and 4).
    trial, _ = _trial(tmp_path, "ABABA", (2.0, 1.8, 2.1, 1.8, 2.3))
    assert trial.design == "A/B/A/B/A" and trial.order == "fixed"
    g = trial.groups[0]
    d = g.design
    assert [(b.seq, b.phase, b.block, b.median, b.n) for b in d.blocks] == [
        (1, "before", 1, 2.0, 12),
        (2, "candidate", 1, 1.8, 12),
        (3, "restored", 1, 2.1, 12),
        (4, "candidate", 2, 1.8, 12),
        (5, "restored", 2, 2.3, 12),
    ]
    # Least squares over x = 1, 3, 5: mean x 3, mean y 6.4/3; slope = (-2 x -0.1333 + 2 x 0.1667) / 8 = 0.075 s per arm.
    assert d.drift_pct_per_arm == pytest.approx(0.075 / 2.0 * 100, **EXACT)  # 3.75 % of the first control per arm
    assert d.corrected_at_seq == 3.0  # the mean of 2 and 4
    assert d.corrected_control == pytest.approx(6.4 / 3, **EXACT)
    assert d.change_vs_corrected_pct == pytest.approx((1.8 / (6.4 / 3) - 1) * 100, **EXACT)  # -15.625 %
    assert [(c.seq, c.change_pct) for c in d.vs_controls] == [
        (1, pytest.approx(-10.0, **EXACT)),
        (3, pytest.approx((1.8 / 2.1 - 1) * 100, **EXACT)),
        (5, pytest.approx((1.8 / 2.3 - 1) * 100, **EXACT)),
    ]
    # The rule's pooled figures: before the first control block, restored the LAST (the middle one is not pooled).
    pooled = g.pooled["e2e_s"]
    assert (pooled["before"].median, pooled["restored"].median) == (2.0, 2.3)
    assert (pooled["before"].n, pooled["candidate"].n, pooled["restored"].n) == (12, 24, 12)
    assert g.verdict.control_drift_pct == pytest.approx(15.0, **EXACT)
    assert [c.change_pct for c in g.comparisons["e2e_s"]] == [pytest.approx(-10.0), pytest.approx((1.8 / 2.3 - 1) * 100)]
    assert (trial.timed_ok, trial.timed_planned) == (5 * 48, 5 * 48)


def test_a_b_b_a_by_hand(tmp_path: Path) -> None:
    trial, _ = _trial(tmp_path, "ABBA", (2.0, 1.8, 1.8, 2.3))
    d = trial.groups[0].design
    assert trial.design == "A/B/B/A"
    assert [(b.phase, b.block) for b in d.blocks] == [("before", 1), ("candidate", 1), ("candidate", 2), ("restored", 1)]
    # Two control blocks, 3 positions apart: 0.3 s / 3 = 0.1 s per arm, 5 % of 2.0 s; at seq 2.5: 2.0 + 0.1 x 1.5.
    assert d.drift_pct_per_arm == pytest.approx(5.0, **EXACT)
    assert d.corrected_at_seq == 2.5
    assert d.corrected_control == pytest.approx(2.15, **EXACT)
    assert d.change_vs_corrected_pct == pytest.approx((1.8 / 2.15 - 1) * 100, **EXACT)


def test_a_b_a_corrected_control_is_the_mean_of_both_controls(tmp_path: Path) -> None:
    trial, _ = _trial(tmp_path, "ABA", (2.0, 1.8, 2.2))
    d = trial.groups[0].design
    assert trial.design == "A/B/A"
    assert d.corrected_control == pytest.approx(2.1, **EXACT)
    assert d.drift_pct_per_arm == pytest.approx(5.0, **EXACT)  # 0.2 s over 2 positions, of 2.0 s
    assert d.change_vs_corrected_pct == pytest.approx((1.8 / 2.1 - 1) * 100, **EXACT)
    assert [b.block for b in d.blocks] == [1, 1, 1]


def test_an_asymmetric_design_evaluates_the_line_where_the_candidate_ran(tmp_path: Path) -> None:
    # A/B/A/B/B/A: controls at seq 1, 3, 6 (2.0, 2.1, 2.5 s), the candidate at 2, 4, 5 (mean seq 11/3).
    # Mean x 10/3, mean y 2.2; Sxy = 1.3, Sxx = 114/9: slope 39/380 s per arm; at 11/3 the line gives
    # 2.2 + 39/380 x 1/3 = 849/380 s, which is not the mean of the controls (2.2 s).
    trial, _ = _trial(tmp_path, "ABABBA", (2.0, 1.8, 2.1, 1.8, 1.8, 2.5))
    d = trial.groups[0].design
    assert d.corrected_at_seq == pytest.approx(11 / 3, **EXACT)
    assert d.drift_pct_per_arm == pytest.approx(39 / 380 / 2.0 * 100, **EXACT)
    assert d.corrected_control == pytest.approx(849 / 380, **EXACT)
    assert d.change_vs_corrected_pct == pytest.approx(-165 / 849 * 100, **EXACT)


def test_candidate_blocks_pool_into_one_candidate(tmp_path: Path) -> None:
    # Blocks of 1.8 s and 2.2 s: every 1.8-block value (at most 1.98) lies below every 2.2-block value (at least
    # 2.035), so the pooled median of the 24 is the mean of 1.98 and 2.035.
    trial, _ = _trial(tmp_path, "ABABA", (2.0, 1.8, 2.0, 2.2, 2.0))
    g = trial.groups[0]
    assert g.pooled["e2e_s"]["candidate"].median == pytest.approx((1.98 + 2.035) / 2, **EXACT)
    assert [b.median for b in g.design.blocks if b.phase == "candidate"] == [1.8, 2.2]
    assert g.design.drift_pct_per_arm == 0.0
    assert g.design.change_vs_corrected_pct == pytest.approx(((1.98 + 2.035) / 2 / 2.0 - 1) * 100, **EXACT)


def test_linear_fit_is_least_squares() -> None:
    assert linear_fit([1, 2, 3], [1.0, 2.0, 4.0]) == (pytest.approx(1.5), pytest.approx(-2 / 3))


def test_a_missing_control_block_leaves_the_drift_unknown(tmp_path: Path) -> None:
    trial, bundle = _trial(tmp_path, "ABABA", (2.0, 1.8, 2.1, 1.8, 2.3))
    journal = bundle / "journals/03-original-restored.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    kept = [
        r
        for r in records
        if not (r["type"] in ("request", "run") and r.get("input_nominal") == 8192 and r.get("concurrency") == 1 and r.get("repetition"))
    ]
    kept[-1]["requests"] = sum(r["type"] == "request" for r in kept)
    kept[-1]["timed_requests"] = sum(r["type"] == "request" and not r["warmup"] for r in kept)
    journal.write_text("".join(json.dumps(r) + "\n" for r in kept))
    g = analyze(load_trial(bundle)).trials[0].groups[0]
    assert g.design.blocks[2].median is None and g.design.blocks[2].n == 0
    assert g.design.drift_pct_per_arm is None and g.design.corrected_control is None
    assert g.design.change_vs_corrected_pct is None
    assert g.design.vs_controls[1].change_pct is None and g.design.vs_controls[0].change_pct is not None
    assert g.pooled["e2e_s"]["restored"].median == 2.3  # the last block still decides


def test_restoration_covers_every_restored_block(tmp_path: Path) -> None:
    trial, _ = _trial(tmp_path, "ABABA", (2.0, 1.8, 2.0, 1.8, 2.0), slots=(100, 200, 150, 200, 100))
    assert trial.slots.restored == 100 and trial.slots.restored_matches_original
    assert not trial.restored_ok  # the middle control block came back with other slots


def test_the_run_level_interval_resamples_each_candidate_block_s_runs_apart(tmp_path: Path) -> None:
    # Two candidate blocks share run ids (r1-..., r2-..., r3-...): they are six runs, not three runs of eight
    # requests; merging them would hide the blocks' difference from the interval.
    from evidence_kit.analyze.groups import run_values

    _, bundle = _trial(tmp_path, "ABABA", (2.0, 1.8, 2.0, 2.2, 2.0))
    evidence = load_trial(bundle)
    group = (GROUPS[0][0], GROUPS[0][1])
    blocks = [[r for r in arm.timed if (r.input_nominal, r.concurrency) == group] for arm in evidence.arms if arm.ref.phase == "candidate"]
    runs = run_values(blocks, "e2e_s")
    assert len(runs) == 6 and all(len(run) == 4 for run in runs)
    assert max(runs[0] + runs[1] + runs[2]) < min(runs[3] + runs[4] + runs[5])  # the 1.8 s block, then the 2.2 s block


def test_a_finding_names_the_block_of_an_arm_whose_phase_has_several(tmp_path: Path) -> None:
    from evidence_kit.present import finding_sentence

    _, bundle = _trial(tmp_path, "ABABA", (2.0, 1.8, 2.0, 1.8, 2.0))
    [journal] = sorted((bundle / "journals").glob("04-*.jsonl"))
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    gate = next(r for r in lines if r["type"] == "gate")
    gate["ok"] = False
    journal.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in lines))
    trial = analyze(load_trial(bundle)).trials[0]
    [failed] = [f for f in trial.findings if f.kind == "gate-failed"]
    assert (failed.values.phase, failed.values.block) == ("candidate", 2)
    assert finding_sentence(failed, trial.candidate_label).endswith("gate failed in the candidate 2 arm.")
