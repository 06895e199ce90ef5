"""AIPerf runs one concurrency per invocation: a sweep is several artifact folders (tests/import_samples/
aiperf-levels/, made by tests/import_samples/regenerate.py aiperf-levels against `evidence-kit sim`, at
concurrency 1 and 3 per phase), each with its records, its summary and its server metrics. Given as one
phase's files they are one repetition of two groups; the server metrics give the KV capacity, and their
counters, whose window is not the timed requests' alone, are not reconciled (said on the page); a wrong file
of the folder is named with the one to pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidence_kit.cli import main
from evidence_kit.importers import read_file
from evidence_kit.read import load_decision

from ..conftest import REPO
from .chain import refused, run_import

SAMPLES = REPO / "tests" / "import_samples" / "aiperf-levels"
PHASES = ("before", "candidate", "restored")
LEVELS = (1, 3)


def _folder(phase: str, level: int) -> Path:
    return SAMPLES / f"{phase}-c{level}"


def _json(phase: str, level: int, name: str) -> dict[str, Any]:
    return json.loads((_folder(phase, level) / name).read_text())


def _files(levels: tuple[int, ...] = LEVELS) -> dict[str, list[Path]]:
    return {phase: [_folder(phase, c) for c in levels] for phase in PHASES}


@pytest.mark.parametrize("level", LEVELS)
def test_a_folder_reads_the_concurrency_set_and_the_kv_capacity(level: int) -> None:
    imported = read_file(_folder("before", level))
    summary, server = _json("before", level, "profile_export_aiperf.json"), _json("before", level, "server_metrics_export.json")
    assert imported.version == summary["aiperf_version"] == "0.13.0"
    (group,) = imported.groups
    profiling = next(p for p in summary["input_config"]["phases"] if p["kind"] == "profiling")
    assert group.concurrency == profiling["concurrency"] == level and not group.observed
    (info,) = server["metrics"]["vllm:cache_config_info"]["series"]
    blocks, size = int(info["labels"]["num_gpu_blocks"]), int(info["labels"]["block_size"])
    assert imported.engine is not None and imported.engine["kv_token_slots"] == blocks * size
    assert imported.engine["cache"]["num_gpu_blocks"] == blocks
    assert "engine-identity" not in imported.not_recorded and "engine-version" in imported.not_recorded


def _records(phase: str, level: int) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (_folder(phase, level) / "profile_export.jsonl").read_text().splitlines() if line.strip()]


def test_the_exports_counter_totals_are_not_the_timed_requests_window() -> None:
    # Why the import reconciles no counter from the export: its totals are bounded by scrapes it does not
    # time. In these real runs some totals miss requests the records hold (a phase shorter than a scrape).
    short = []
    for phase in PHASES:
        for level in LEVELS:
            server = _json(phase, level, "server_metrics_export.json")
            counted = sum(s["stats"]["total"] for s in server["metrics"]["vllm:request_success"]["series"])
            done = sum(1 for r in _records(phase, level) if r["metadata"]["benchmark_phase"] == "profiling" and r.get("error") is None)
            short.append(counted != done)
    assert any(short)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("level", LEVELS)
def test_no_counter_is_reconciled_and_the_page_says_why(phase: str, level: int) -> None:
    imported = read_file(_folder(phase, level))
    assert "counter-window" in imported.not_recorded and "counter-reconciliation" not in imported.not_recorded


def test_runs_at_different_concurrencies_combine_into_one_phase(tmp_path: Path) -> None:
    assert run_import(tmp_path, _files()) == 0
    (trial,) = load_decision(tmp_path / "raw").trials
    assert trial.trial.workload.concurrency == list(LEVELS) and trial.trial.workload.repetitions == 1
    assert len(trial.trial.workload.groups()) == len(LEVELS)
    for arm in trial.arms:
        assert [r.concurrency for r in arm.runs] == list(LEVELS)
        assert arm.header.engine.kv_token_slots is not None
        assert arm.header.imported is not None and len(arm.header.imported.files) == len(LEVELS)


def test_the_analysis_has_one_group_per_level_and_every_run_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_import(tmp_path, _files()) == 0
    capsys.readouterr()
    assert main(["analyze", str(tmp_path / "raw"), "--json"]) == 0
    (trial,) = json.loads(capsys.readouterr().out)["trials"]
    assert len(trial["groups"]) == len(LEVELS)
    assert not [f for f in trial["findings"] if f["kind"] == "incomplete"]


def test_a_level_missing_from_a_repetition_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files()
    files["candidate"] = [_folder("candidate", 1), _folder("candidate", 3), _folder("before", 1)]
    err = refused(tmp_path, capsys, _folder("candidate", 1), files)
    assert "2 at concurrency 1, 1 at concurrency 3" in err


@pytest.mark.parametrize(
    "name, words",
    [("profile_export_aiperf.json", "AIPerf's summary"), ("server_metrics_export.json", "AIPerf's server metrics")],
)
def test_a_wrong_file_of_the_folder_is_named_with_the_one_to_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, words: str) -> None:
    bad = _folder("before", 1) / name
    files = {phase: [_folder(phase, 1)] for phase in PHASES}
    files["before"] = [bad]
    err = refused(tmp_path, capsys, bad, files)
    assert words in err and "profile_export.jsonl" in err and "holds no per-request timings" in err
