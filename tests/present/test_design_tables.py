"""The design table (terminal and pages alike): shown for a design other than A/B/A only, every cell read off
the analysis; per-arm labels and phases that tell the blocks of one phase apart."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.analyze.report import Analysis, DecisionSummary
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.present import arm_label_map, arm_labels, arm_phases, occupancy_text
from evidence_kit.read import load_trial
from evidence_kit.text_report import render_text


def _trial(tmp_path: Path, design: str, medians: tuple[float, ...]):
    spec = {
        **REFERENCE_TRIALS["cache-layout"],
        "title": f"{design} test",
        "e2e": {g: medians for g in GROUPS},
        "slots": tuple(100 if letter == "A" else 200 for letter in design),
    }
    return analyze(load_trial(write_trial_bundle(tmp_path / design, "t", spec, design=design))).trials[0]


def _text(trial) -> str:
    summary = DecisionSummary(
        id=None,
        title=None,
        date=None,
        outcome="no-promotion",
        promoted=[],
        trials=["t"],
        simulated=True,
        timed_ok=0,
        timed_planned=0,
        pooled_n_min=0,
        pooled_n_max=0,
        restored_ok=True,
    )
    return render_text(Analysis(tool_version="x", definitions={}, decision=summary, trials=[trial]))


def test_text_report_shows_a_design_table_only_beyond_a_b_a(tmp_path: Path) -> None:
    aba = _trial(tmp_path, "ABA", (2.0, 1.8, 2.2))
    ababa = _trial(tmp_path, "ABABA", (2.0, 1.8, 2.1, 1.8, 2.3))
    assert "Design" not in _text(aba) and "drift" not in _text(aba)
    out = _text(ababa)
    assert "Design A/B/A/B/A, block by block." in out
    row = next(line for line in out.splitlines() if line.startswith("| ~6K/C1 ") and "%" in line and "2.133" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    # Group, the three control blocks, drift, corrected control, vs corrected, vs each control block.
    assert cells == ["~6K/C1", "2.000", "2.100", "2.300", "+3.75%", "2.133", "15.62% faster", "10.00% faster", "14.29% faster", "21.74% faster"]
    assert ("Timed requests completed: 240/240 (before 48/48, candidate 1 48/48, restored 1 48/48, candidate 2 48/48, restored 2 48/48)") in out


def test_arm_names_tell_blocks_apart_and_leave_a_b_a_as_it_was(tmp_path: Path) -> None:
    aba = _trial(tmp_path, "ABA", (2.0, 1.8, 2.2))
    assert arm_labels(aba) == ["Original before", "Layout candidate", "Original restored"]
    assert arm_phases(aba) == {1: "before", 2: "candidate", 3: "restored"}
    abba = _trial(tmp_path, "ABBA", (2.0, 1.8, 1.8, 2.2))
    assert arm_label_map(abba) == {1: "Original before", 2: "Layout candidate 1", 3: "Layout candidate 2", 4: "Original restored"}
    assert arm_phases(abba) == {1: "before", 2: "candidate 1", 3: "candidate 2", 4: "restored"}
    assert occupancy_text(abba) is None  # no telemetry in these bundles
