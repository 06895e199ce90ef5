"""Telemetry summaries are recomputed from the sampled series; a footer that disagrees is a finding."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.analyze.telemetry import telemetry_summary
from evidence_kit.model.telemetry import TelemetrySample
from evidence_kit.read import load_trial

SAMPLES = [
    {
        "type": "sample",
        "t_s": 0.0,
        "engine": {"running": 0.0, "waiting": 0.0, "kv_usage": 0.0},
        "gpus": [{"memory_free": 4000.0, "memory_used": 90000.0, "power_draw": 210.5}],
        "process": {"rss_bytes": 1000},
        "cgroup": {"memory_bytes": 5000, "peak_memory_bytes": 6000, "oom_kills": 2},
    },
    {
        "type": "sample",
        "t_s": 0.5,
        "engine": {"running": 4.0, "waiting": 1.0, "kv_usage": 0.42},
        "gpus": [{"memory_free": 2143.0, "memory_used": 91857.0, "power_draw": 298.0}],
        "process": {"rss_bytes": 3000},
        "cgroup": {"memory_bytes": 7000, "peak_memory_bytes": 9000, "oom_kills": 3},
    },
    {"type": "sample", "t_s": 1.0, "engine": None, "gpus": None, "process": None, "cgroup": None},
]


def summary_of(samples: list[dict]) -> dict:
    """The summary of samples written as JSON, as the collector records it in a footer."""
    return telemetry_summary([TelemetrySample.model_validate(s) for s in samples]).model_dump()


def test_summary_extremes_and_absent_sources() -> None:
    summary = summary_of(SAMPLES)
    assert summary == {
        "samples": 3,
        "max_running": 4.0,
        "max_waiting": 1.0,
        "max_kv_usage": 0.42,
        "gpu": "present",
        "min_gpu_free_mib": 2143.0,
        "max_gpu_used_mib": 91857.0,
        "max_gpu_power_w": 298.0,
        "max_process_rss_bytes": 3000,
        "max_cgroup_memory_bytes": 7000,
        "cgroup_peak_memory_bytes": 9000,
        "oom_kills": 1,  # counted from the first sample that saw the cgroup
    }
    empty = summary_of([{"type": "sample", "t_s": 0.0, "engine": None, "gpus": None, "process": None, "cgroup": None}])
    assert empty["gpu"] == "absent" and empty["min_gpu_free_mib"] is None and empty["oom_kills"] is None


def _with_telemetry(bundle: Path, footer_summary: dict) -> None:
    journal = bundle / "journals/02-layout-candidate-candidate.jsonl"
    (bundle / "telemetry").mkdir()
    (bundle / "telemetry" / journal.name).write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    lines = journal.read_text().splitlines()
    footer = json.loads(lines[-1])
    footer["telemetry"] = footer_summary
    lines[-1] = json.dumps(footer)
    journal.write_text("\n".join(lines) + "\n")


def test_recomputed_summary_reaches_the_analysis(reference_decision: Path) -> None:
    bundle = reference_decision / "cache-layout"
    _with_telemetry(bundle, summary_of(SAMPLES))
    trial = analyze(load_trial(bundle)).trials[0]
    assert trial.arms[1].telemetry is not None and trial.arms[1].telemetry.model_dump() == summary_of(SAMPLES)
    assert trial.arms[0].telemetry is None  # no series for that arm: absent, never invented
    assert "telemetry-mismatch" not in [f.kind for f in trial.findings]


def test_a_footer_that_disagrees_with_its_samples_is_a_finding(reference_decision: Path) -> None:
    bundle = reference_decision / "cache-layout"
    _with_telemetry(bundle, {**summary_of(SAMPLES), "min_gpu_free_mib": 9999.0, "oom_kills": 0})
    trial = analyze(load_trial(bundle)).trials[0]
    mismatch = [f for f in trial.findings if f.kind == "telemetry-mismatch"]
    assert [(f.values.phase, f.values.fields) for f in mismatch] == [("candidate", "min_gpu_free_mib, oom_kills")]


def test_a_bad_telemetry_line_names_file_and_line(reference_decision: Path, run_cli) -> None:
    bundle = reference_decision / "cache-layout"
    _with_telemetry(bundle, summary_of(SAMPLES))
    path = bundle / "telemetry/02-layout-candidate-candidate.jsonl"
    path.write_text(path.read_text() + "{not json\n")
    result = run_cli("analyze", bundle)
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {path}:4: telemetry line is not valid JSON")


def test_a_sample_of_the_wrong_shape_names_file_line_and_field(reference_decision: Path, run_cli) -> None:
    bundle = reference_decision / "cache-layout"
    _with_telemetry(bundle, summary_of(SAMPLES))
    path = bundle / "telemetry/02-layout-candidate-candidate.jsonl"
    bad = {**SAMPLES[0], "t_s": 2.0, "engine": {"running": "4"}}
    path.write_text(path.read_text() + json.dumps({"type": "note", "text": "other lines are skipped"}) + "\n" + json.dumps(bad) + "\n")
    result = run_cli("analyze", bundle)
    assert result.code == 2
    assert result.err.startswith(f"evidence-kit: {path}:5: telemetry sample: field 'engine.running': must be a finite number at least 0")
