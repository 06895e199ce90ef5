"""`evidence-kit import` of real GuideLLM 0.8.1 reports (tests/import_samples/guidellm/, made by
tests/import_samples/regenerate.py against `evidence-kit sim`): each benchmark of the sweep a group, the
report's own summary reproduced, absent stays absent, bad reports refused with their name."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from evidence_kit.importers import read_file
from evidence_kit.read import load_decision

from ..conftest import REPO
from .chain import redact_build_verify, refused_candidate, run_import

SAMPLES = REPO / "tests" / "import_samples" / "guidellm"
PHASES = ("before", "candidate", "restored")


def _doc(name: str) -> dict[str, Any]:
    return json.loads((SAMPLES / f"{name}.json").read_text())


def _nearest_rank_median(values: list[Any]) -> Any:
    return sorted(values)[math.ceil(len(values) / 2) - 1]


@pytest.mark.parametrize("name", [*PHASES, "faults"])
def test_each_benchmark_reproduces_the_reports_own_summary(name: str) -> None:
    doc = _doc(name)
    imported = read_file(SAMPLES / f"{name}.json")
    assert imported.tool == "guidellm" and imported.version == doc["metadata"]["guidellm_version"] == "0.8.1"
    assert "content-ttft" not in imported.not_recorded  # GuideLLM times the first content token apart
    assert len(imported.groups) == len(doc["benchmarks"]) == 2
    for group, bench in zip(imported.groups, doc["benchmarks"]):
        m = bench["metrics"]
        assert group.concurrency == bench["config"]["strategy"]["streams"]
        ok = [r for r in group.requests if r.ok]
        assert len(ok) == m["request_totals"]["successful"]
        assert len(group.requests) - len(ok) == m["request_totals"]["errored"] + m["request_totals"]["incomplete"]
        # GuideLLM's distribution summaries are over the successful requests, and its median is the
        # nearest-rank one (the smallest value whose share reaches one half: the lower middle of an even count).
        assert _nearest_rank_median([r.e2e_s for r in ok]) == pytest.approx(m["request_latency"]["successful"]["median"], rel=1e-6)
        assert _nearest_rank_median([r.ttft_s for r in ok]) * 1000 == pytest.approx(m["time_to_first_token_ms"]["successful"]["median"], rel=1e-6)
        assert statistics.mean(r.ttft_s for r in ok) * 1000 == pytest.approx(m["time_to_first_token_ms"]["successful"]["mean"], rel=1e-6)
        assert _nearest_rank_median([r.prompt_tokens for r in ok]) == m["prompt_token_count"]["successful"]["median"]
        assert sum(r.completion_tokens for r in ok) == pytest.approx(m["output_token_count"]["successful"]["total_sum"])
        assert all(r.ttft_s <= r.ttft_content_s <= r.e2e_s for r in ok)


def test_errored_requests_keep_their_reason(tmp_path: Path) -> None:
    doc = _doc("faults")
    errored = [r for b in doc["benchmarks"] for r in b["requests"]["errored"]]
    assert errored, "the faults sample was made with a quarter of the requests answered HTTP 500"
    imported = read_file(SAMPLES / "faults.json")
    failed = [r for g in imported.groups for r in g.requests if not r.ok]
    assert len(failed) >= len(errored)
    assert all(r.error and "\n" not in r.error and r.e2e_s is None and r.ttft_s is None for r in failed)


def _import(tmp_path: Path, files: dict[str, list[Path]] | None = None) -> int:
    return run_import(tmp_path, files or {phase: [SAMPLES / f"{phase}.json"] for phase in PHASES})


def test_each_benchmark_becomes_a_group(tmp_path: Path) -> None:
    assert _import(tmp_path) == 0
    (trial,) = load_decision(tmp_path / "raw").trials
    assert trial.trial.workload.concurrency == [1, 2]
    assert [(r.concurrency, r.repetition) for r in trial.arms[0].runs] == [(1, 1), (2, 1)]
    for arm in trial.arms:
        assert arm.header.imported is not None and arm.header.imported.files[0].version == "0.8.1"
        assert (arm.header.private.imported_files or [])[0].model == _doc("before")["config"]["spec"]["backend"]["model"]
        assert all(r.ttft_content_s is not None for r in arm.timed if r.ok)


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> str:
    return refused_candidate(tmp_path, capsys, SAMPLES, "json", data)


def test_bad_reports_are_refused_with_the_file_and_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = (SAMPLES / "candidate.json").read_bytes()
    assert "truncated JSON" in _bad(tmp_path, capsys, sample[: len(sample) // 3])
    doc = json.loads(sample)
    doc["metadata"]["version"] = 1
    assert "format version 1" in _bad(tmp_path, capsys, json.dumps(doc).encode())
    doc = json.loads(sample)
    for r in doc["benchmarks"][1]["requests"]["successful"]:
        r["time_to_first_token_ms"] = None  # what a run without streaming records
    assert "not streamed" in _bad(tmp_path, capsys, json.dumps(doc).encode())
    doc = json.loads(sample)
    doc["benchmarks"][0]["config"]["strategy"] = {"type_": "constant", "rate": 5.0}
    assert "'constant' benchmark" in _bad(tmp_path, capsys, json.dumps(doc).encode())
    doc = json.loads(sample)
    doc["benchmarks"][0]["requests"]["successful"].pop()
    assert "sample" in _bad(tmp_path, capsys, json.dumps(doc).encode())
    vllm = (REPO / "tests" / "import_samples" / "vllm-bench" / "candidate.json").read_bytes()
    assert "is a vllm bench serve file" in _bad(tmp_path, capsys, vllm)


@pytest.mark.slow
def test_an_imported_guidellm_trial_builds_signs_and_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 0
    site = redact_build_verify(tmp_path, capsys)
    target = _doc("before")["config"]["spec"]["backend"]["target"]
    published = [p for p in (site / "public").rglob("*") if p.is_file()]
    assert not any(target.encode() in p.read_bytes() for p in published)
    page = next(p for p in published if p.name == "index.html" and "decisions" in p.parts).read_text()
    assert "Imported from GuideLLM 0.8.1" in page
    assert "visible-content TTFT is absent" not in page  # GuideLLM times the first content token apart
