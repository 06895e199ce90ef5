"""`evidence-kit import` of real AIPerf 0.13.0 records (tests/import_samples/aiperf/<phase>.jsonl, made by
tests/import_samples/regenerate.py against `evidence-kit sim`, each with AIPerf's own summary of the same
run beside it as <phase>-summary.json): warmup kept as warmup, the summary reproduced, bad files refused."""

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

SAMPLES = REPO / "tests" / "import_samples" / "aiperf"
PHASES = ("before", "candidate", "restored")


def _summary(name: str) -> dict[str, Any]:
    return json.loads((SAMPLES / f"{name}-summary.json").read_text())


def _phase(summary: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(p for p in summary["input_config"]["phases"] if p["kind"] == kind)


@pytest.mark.parametrize("name", [*PHASES, "faults"])
def test_each_file_reproduces_aiperfs_own_summary(name: str) -> None:
    summary = _summary(name)
    imported = read_file(SAMPLES / f"{name}.jsonl")
    assert imported.tool == "aiperf" and imported.version is None  # the records carry none (the summary: 0.13.0)
    assert summary["aiperf_version"] == "0.13.0"
    assert "warmup" not in imported.not_recorded and "content-ttft" not in imported.not_recorded
    (group,) = imported.groups
    profiling, warmup = _phase(summary, "profiling"), _phase(summary, "warmup")
    # Not recorded per request: the most requests in flight at once, at most the setting.
    assert group.observed and 1 <= group.concurrency <= profiling["concurrency"]
    assert sum(r.warmup for r in group.requests) == warmup["requests"]
    timed = [r for r in group.requests if not r.warmup]
    ok = [r for r in timed if r.ok]
    assert len(timed) == profiling["requests"]
    assert len(timed) - len(ok) == (summary.get("error_request_count") or {}).get("avg", 0)
    # AIPerf's summaries are over the successful profiling requests, in ms; p50 interpolates (numpy).
    for metric, field in (("request_latency", "e2e_s"), ("time_to_first_token", "ttft_s"), ("time_to_first_output_token", "ttft_content_s")):
        values = [getattr(r, field) * 1000 for r in ok]
        assert statistics.mean(values) == pytest.approx(summary[metric]["avg"], rel=1e-6)
        assert statistics.median(values) == pytest.approx(summary[metric]["p50"], rel=1e-6)
    assert sum(r.completion_tokens for r in ok) == summary["usage_completion_tokens"]["sum"]
    assert sum(r.prompt_tokens for r in ok) == summary["usage_prompt_tokens"]["sum"]


def test_failed_requests_keep_their_reason() -> None:
    (group,) = read_file(SAMPLES / "faults.jsonl").groups
    failed = [r for r in group.requests if not r.ok]
    assert failed, "the faults sample was made with a quarter of the requests answered HTTP 500"
    assert all(r.error and "\n" not in r.error and r.e2e_s is None for r in failed)
    assert any("500" in r.error for r in failed)


def _import(tmp_path: Path, files: dict[str, list[Path]] | None = None) -> int:
    return run_import(tmp_path, files or {phase: [SAMPLES / f"{phase}.jsonl"] for phase in PHASES})


def test_warmup_is_journalled_as_warmup(tmp_path: Path) -> None:
    assert _import(tmp_path) == 0
    (trial,) = load_decision(tmp_path / "raw").trials
    assert trial.trial.workload.warmup_requests == _phase(_summary("before"), "warmup")["requests"]
    assert trial.trial.workload.concurrency == [_phase(_summary("before"), "profiling")["concurrency"]]
    for arm in trial.arms:
        warm = [r for r in arm.requests if r.warmup]
        assert warm and all(r.run == "warmup" and r.repetition == 0 for r in warm)
        assert len(arm.timed) == _phase(_summary(arm.ref.phase), "profiling")["requests"]


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> str:
    return refused_candidate(tmp_path, capsys, SAMPLES, "jsonl", data)


def test_bad_records_are_refused_with_the_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = (SAMPLES / "candidate.jsonl").read_bytes()
    lines = sample.splitlines(keepends=True)
    torn = b"".join(lines[:4]) + lines[4][: len(lines[4]) // 2]
    assert "bad.jsonl:5: truncated or invalid JSON" in _bad(tmp_path, capsys, torn)
    assert "not UTF-8" in _bad(tmp_path, capsys, b"".join(lines[:3]) + b"\xff" + b"".join(lines[3:]))
    unstreamed = [json.loads(line) for line in lines]
    for rec in unstreamed:
        rec["metrics"].pop("time_to_first_token", None)  # what a profile without --streaming records
    assert "not streamed" in _bad(tmp_path, capsys, b"".join(json.dumps(r).encode() + b"\n" for r in unstreamed))
    guidellm = (REPO / "tests" / "import_samples" / "guidellm" / "candidate.json").read_bytes()
    assert "is a GuideLLM file" in _bad(tmp_path, capsys, guidellm)
    # A record whose chunk gaps outlast its stream (the first record's last gap a second long) contradicts itself.
    outlasting = [json.loads(line) for line in lines]
    first = next(i for i, r in enumerate(outlasting) if isinstance(r["metrics"].get("inter_chunk_latency"), dict))
    outlasting[first]["metrics"]["inter_chunk_latency"]["value"][-1] += (
        1e9 if outlasting[first]["metrics"]["inter_chunk_latency"].get("unit") == "ns" else 1e3
    )
    said = _bad(tmp_path, capsys, b"".join(json.dumps(r).encode() + b"\n" for r in outlasting))
    assert f"bad.jsonl:{first + 1}:" in said and "cannot outlast the stream" in said, said


@pytest.mark.slow
def test_an_imported_aiperf_trial_builds_signs_and_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 0
    site = redact_build_verify(tmp_path, capsys)
    page = decision_page(site)
    assert "Imported from AIPerf" in page and "no counter reconciliation" in page
