"""`evidence-kit import` of real inference-perf 0.7.0 per-request lifecycle reports
(tests/import_samples/inference-perf/<phase>.json, made by tests/import_samples/regenerate.py against
`evidence-kit sim`, each beside inference-perf's own stage summary of the run, <phase>-summary.json)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from evidence_kit.importers import read_file
from evidence_kit.read import load_decision

from ..conftest import REPO
from .chain import decision_page, redact_build_verify, refused_candidate, run_import

SAMPLES = REPO / "tests" / "import_samples" / "inference-perf"
PHASES = ("before", "candidate", "restored")


def _summary(name: str) -> dict[str, Any]:
    return json.loads((SAMPLES / f"{name}-summary.json").read_text())


@pytest.mark.parametrize("name", [*PHASES, "faults"])
def test_each_file_reproduces_the_stage_summary(name: str) -> None:
    summary = _summary(name)
    imported = read_file(SAMPLES / f"{name}.json")
    assert imported.tool == "inference-perf" and imported.version is None  # the report records none
    (group,) = imported.groups
    # Not recorded per request: the most requests in flight at once, at most the stage's level.
    assert group.observed and 1 <= group.concurrency <= summary["load_summary"]["concurrency"]
    ok = [r for r in group.requests if r.ok]
    assert len(ok) == summary["successes"]["count"]
    assert len(group.requests) - len(ok) == summary["failures"]["count"]
    latency = summary["successes"]["latency"]
    for metric, field in (("request_latency", "e2e_s"), ("time_to_first_token", "ttft_s")):
        values = [getattr(r, field) for r in ok]
        assert statistics.median(values) == pytest.approx(latency[metric]["median"], rel=1e-6, abs=1e-9)
        assert statistics.mean(values) == pytest.approx(latency[metric]["mean"], rel=1e-6, abs=1e-9)
    assert all(r.ttft_content_s is None for r in group.requests)  # inference-perf does not tell reasoning apart


def test_failed_requests_keep_their_reason() -> None:
    (group,) = read_file(SAMPLES / "faults.json").groups
    failed = [r for r in group.requests if not r.ok]
    assert failed, "the faults sample was made with a quarter of the requests answered HTTP 500"
    assert all(r.error and "\n" not in r.error and r.e2e_s is None for r in failed)


def _import(tmp_path: Path, files: dict[str, list[Path]] | None = None, *extra: str) -> int:
    return run_import(tmp_path, files or {phase: [SAMPLES / f"{phase}.json"] for phase in PHASES}, *extra)


def test_a_report_records_no_date_so_the_decision_needs_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 2
    assert "pass --date" in capsys.readouterr().err and not (tmp_path / "raw").exists()
    assert _import(tmp_path, None, "--date", "2026-12-01") == 0
    decision = load_decision(tmp_path / "raw")
    assert decision.decision.date == "2026-12-01"
    (trial,) = decision.trials
    assert all((arm.header.private.imported_files or [])[0].model for arm in trial.arms)
    # One level for the trial: the most any file had in flight, which is the stages' concurrency_level.
    assert trial.trial.workload.concurrency == [_summary("before")["load_summary"]["concurrency"]]


def test_a_declared_concurrency_is_checked_against_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path, None, "--date", "2026-12-01", "--concurrency", "1") == 2
    assert "more than --concurrency 1" in capsys.readouterr().err
    assert _import(tmp_path, None, "--date", "2026-12-01", "--concurrency", "3") == 0
    (trial,) = load_decision(tmp_path / "raw").trials
    assert trial.trial.workload.concurrency == [3]


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> str:
    return refused_candidate(tmp_path, capsys, SAMPLES, "json", data)


def test_bad_reports_are_refused_with_the_file_and_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = (SAMPLES / "candidate.json").read_bytes()
    assert "truncated JSON" in _bad(tmp_path, capsys, sample[: len(sample) // 2])
    doc = json.loads(sample)
    for entry in doc:
        entry["info"]["response_metrics"]["output_token_times"] = []  # what a run without streaming records
    assert "not streamed" in _bad(tmp_path, capsys, json.dumps(doc).encode())
    aiperf = (REPO / "tests" / "import_samples" / "aiperf" / "candidate.jsonl").read_bytes()
    assert "is an AIPerf file" in _bad(tmp_path, capsys, aiperf)


@pytest.mark.slow
def test_an_imported_inference_perf_trial_builds_signs_and_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path, None, "--date", "2026-12-01") == 0
    site = redact_build_verify(tmp_path, capsys)
    page = decision_page(site)
    assert "Imported from inference-perf" in page and "no counter reconciliation" in page
