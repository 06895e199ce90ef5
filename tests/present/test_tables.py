"""A trial's tables: the terminal report and the decision page show the same rows."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.model.telemetry import TelemetrySummary
from evidence_kit.present import (
    comparison_rows,
    metric_headers,
    metric_rows,
    occupancy,
    requests_sentence,
    telemetry_summary_rows,
)
from evidence_kit.read import load_decision
from evidence_kit.text_report import render_text


def test_the_terminal_shows_the_page_rows(reference_decision: Path) -> None:
    analysis = analyze(load_decision(reference_decision))
    layout = analysis.trials[0]
    medians, verdicts = metric_rows(layout, "e2e_s"), comparison_rows(layout)
    assert metric_headers(layout) == ["Actual input", "Concurrency", "Original before", "Layout candidate", "Original restored"]
    assert medians[3] == ["~25K", "4", "11.355", "12.404", "11.494"]
    assert verdicts[3] == ["~25K/C4", "9.24% slower", "7.92% slower", "1.031–1.157", "1.022–1.139", "9.02%", "regression"]
    assert verdicts[0][3:5] == ["0.990–1.111 (n.s.)", "0.975–1.094 (n.s.)"]
    text = render_text(analysis)
    for medians_row, verdict_row in zip(medians, verdicts):
        cells = medians_row + verdict_row[1:]
        line = next(line for line in text.splitlines() if line.startswith(f"| {cells[0]} ") and f" {cells[2]} " in line)
        assert [cell.strip() for cell in line.strip("|").split("|")] == cells


def test_failed_requests_are_counted_from_the_analysis(reference_decision: Path) -> None:
    trial = analyze(load_decision(reference_decision)).trials[0]
    assert requests_sentence(trial).endswith("; no request failures")
    trial.timed_failed = 3
    assert requests_sentence(trial).endswith("; 3 failed requests")


def test_no_telemetry_no_occupancy(reference_decision: Path) -> None:
    trial = analyze(load_decision(reference_decision)).trials[0]
    assert occupancy(trial) is None and telemetry_summary_rows(trial) == []
    fields = {name: None for name in TelemetrySummary.model_fields}
    trial.arms[0].telemetry = TelemetrySummary(**{**fields, "samples": 3, "max_running": 4.0, "gpu": "absent"})
    assert occupancy(trial) == ["4", "absent", "absent"]
    rows = telemetry_summary_rows(trial)
    assert [row[0] for row in rows] == sorted(name.replace("_", " ") for name in TelemetrySummary.model_fields)
    assert ["gpu", "absent", "absent", "absent"] in rows and ["max running", "4", "absent", "absent"] in rows
    assert ["samples", "3", "absent", "absent"] in rows and ["max waiting", "absent", "absent", "absent"] in rows
