"""`evidence-kit import` of real `vllm bench serve` result files (tests/import_samples/vllm-bench/, made by
tests/import_samples/regenerate.py against `evidence-kit sim`): each request mapped as vLLM recorded it, the
file's own summary reproduced, absent stays absent, and bad files refused with their name."""

from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from evidence_kit.cli import main
from evidence_kit.importers import read_file
from evidence_kit.read import load_decision

from ..conftest import REPO
from .chain import redact_build_verify, refused_candidate, run_import

SAMPLES = REPO / "tests" / "import_samples" / "vllm-bench"
PHASES = ("before", "candidate", "restored")


def _doc(name: str) -> dict[str, Any]:
    return json.loads((SAMPLES / f"{name}.json").read_text())


@pytest.mark.parametrize("name", [*PHASES, "faults"])
def test_each_sample_reproduces_the_tools_own_summary(name: str) -> None:
    doc = _doc(name)
    imported = read_file(SAMPLES / f"{name}.json")
    (group,) = imported.groups
    ok = [r for r in group.requests if r.ok]
    assert len(group.requests) == doc["num_prompts"]
    assert len(ok) == doc["completed"] and len(group.requests) - len(ok) == doc["failed"]
    assert group.concurrency == doc["max_concurrency"]
    # vLLM's medians are over the successful requests, in milliseconds (np.median: mean of the two middle).
    assert statistics.median(r.ttft_s for r in ok) * 1000 == pytest.approx(doc["median_ttft_ms"], rel=1e-6)
    assert statistics.mean(r.ttft_s for r in ok) * 1000 == pytest.approx(doc["mean_ttft_ms"], rel=1e-6)
    # The end-to-end summary is printed only with --percentile-metrics e2el; the per-request latencies are kept.
    assert [r.e2e_s for r in ok] == pytest.approx([x for x, e in zip(doc["latencies"], doc["errors"]) if not e])
    assert sum(r.completion_tokens for r in ok) == doc["total_output_tokens"]
    assert sum(r.prompt_tokens for r in ok) == doc["total_input_tokens"]
    assert imported.tool == "vllm-bench-serve" and imported.version is None  # the file records none
    assert "warmup" in imported.not_recorded and not any(r.warmup for r in group.requests)
    assert all(r.ttft_s <= r.e2e_s for r in ok)


def test_failed_requests_keep_their_reason_and_no_placeholder_times() -> None:
    doc = _doc("faults")
    (group,) = read_file(SAMPLES / "faults.json").groups
    failed = [(i, r) for i, r in enumerate(group.requests) if not r.ok]
    assert failed, "the faults sample was made with a quarter of the requests answered HTTP 500"
    for i, r in failed:
        assert doc["errors"][i] and r.error and "\n" not in r.error
        # vLLM leaves 0.0 / 0 in a failed request's ttft, latency and output length: not measurements.
        assert r.ttft_s is None and r.e2e_s is None and r.completion_tokens is None


def _import(tmp_path: Path, *extra: str, files: dict[str, list[Path]] | None = None) -> int:
    return run_import(tmp_path, files or {phase: [SAMPLES / f"{phase}.json"] for phase in PHASES}, *extra)


def test_import_writes_a_decision_folder_the_reader_accepts(tmp_path: Path) -> None:
    assert _import(tmp_path) == 0
    decision = load_decision(tmp_path / "raw")
    (trial,) = decision.trials
    assert [a.ref.phase for a in trial.arms] == list(PHASES)
    for arm, phase in zip(trial.arms, PHASES):
        doc = _doc(phase)
        assert arm.header.imported is not None and arm.header.imported.tool == "vllm-bench-serve"
        assert arm.header.imported.files[0].sha256 == hashlib.sha256((SAMPLES / f"{phase}.json").read_bytes()).hexdigest()
        assert (arm.header.private.imported_files or [])[0].model == doc["model_id"]
        timed = arm.timed
        assert len(timed) == doc["num_prompts"] and all(r.ttft_content_s is None for r in timed)
        assert all(run.reconciled is None and run.counters is None and run.client is None for run in arm.runs)
        assert not arm.gates and not arm.checks
    w = trial.trial.workload
    assert w.temperature is None and w.max_tokens is None  # vLLM's file records neither
    assert w.concurrency == [2] and w.repetitions == 1


def test_the_analysis_names_what_was_imported_and_claims_no_restoration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 0
    capsys.readouterr()
    assert main(["analyze", str(tmp_path / "raw"), "--json"]) == 0
    (trial,) = json.loads(capsys.readouterr().out)["trials"]
    (imported,) = [f for f in trial["findings"] if f["kind"] == "imported"]
    assert imported["values"] == {"tool": "vllm-bench-serve", "versions": [], "not_recorded": read_file(SAMPLES / "before.json").not_recorded}
    assert [a["imported"]["files"][0]["sha256"] for a in trial["arms"]] == [
        hashlib.sha256((SAMPLES / f"{p}.json").read_bytes()).hexdigest() for p in PHASES
    ]
    # No gate or lifecycle check ran in an imported arm: restoration is not shown, never "held".
    assert trial["restored_ok"] is False and all(a["gates_total"] == 0 and a["checks"] == {} for a in trial["arms"])
    assert trial["client_runs_recorded"] == 0 and trial["runs_unreconcilable"] == trial["runs_total"]


def test_repetitions_are_files_and_the_rule_file_is_read(tmp_path: Path) -> None:
    rule = tmp_path / "rule.toml"
    rule.write_text('[decision_rule]\nmetric = "ttft_s"\nmin_improvement = 0.05\nconfidence = "significant"\n')
    # Six files: the samples, and a copy of each whose bytes differ (the same JSON, indented).
    files: dict[str, list[Path]] = {}
    for phase in PHASES:
        copy = tmp_path / f"{phase}-2.json"
        copy.write_text(json.dumps(_doc(phase), indent=1))
        files[phase] = [SAMPLES / f"{phase}.json", copy]
    assert _import(tmp_path, "--rule", str(rule), files=files) == 0
    (trial,) = load_decision(tmp_path / "raw").trials
    assert trial.trial.workload.repetitions == 2
    assert trial.trial.decision_rule.metric == "ttft_s" and trial.trial.decision_rule.min_improvement == 0.05
    assert [r.repetition for r in trial.arms[0].runs] == [1, 2]


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, name: str = "") -> str:
    return refused_candidate(tmp_path, capsys, SAMPLES, "json", data, name)


def test_bad_files_are_refused_with_the_file_and_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = (SAMPLES / "candidate.json").read_bytes()
    assert "truncated JSON" in _bad(tmp_path, capsys, sample[: len(sample) // 2])
    assert "not UTF-8" in _bad(tmp_path, capsys, sample[:40] + b"\xff\xfe" + sample[40:])
    journal = next((REPO / "evidence").rglob("journals/01-*.jsonl")).read_bytes()
    assert "an evidence-kit journal" in _bad(tmp_path, capsys, journal, "journal.jsonl")
    trial = next((REPO / "evidence").rglob("trial.json")).read_bytes()
    assert "not a result file of a known client" in _bad(tmp_path, capsys, trial)
    doc = json.loads(sample)
    for key in ("ttfts", "itls", "input_lens", "output_lens", "start_times", "generated_texts", "errors"):
        doc.pop(key)  # what vLLM saves without --save-detailed
    assert "--save-detailed" in _bad(tmp_path, capsys, json.dumps(doc).encode())
    edited = json.loads(sample)
    edited["completed"] += 1
    assert "completed" in _bad(tmp_path, capsys, json.dumps(edited).encode())


def test_mixed_phases_and_shapes_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"before": [SAMPLES / "before.json"] * 2, "candidate": [SAMPLES / "candidate.json"], "restored": [SAMPLES / "restored.json"]}
    assert _import(tmp_path, files=files) == 2
    assert "same bytes as" in capsys.readouterr().err  # one file given twice: its requests counted twice
    files["before"] = [SAMPLES / "before.json", SAMPLES / "faults.json"]
    assert _import(tmp_path, files=files) == 2
    assert "same number of files" in capsys.readouterr().err
    files = {"before": [SAMPLES / "before.json"], "candidate": [SAMPLES / "candidate.json"], "restored": [SAMPLES / "before.json"]}
    assert _import(tmp_path, files=files) == 2
    assert "same bytes as" in capsys.readouterr().err
    other = json.loads((SAMPLES / "candidate.json").read_text())
    other["max_concurrency"] = 4
    (tmp_path / "c4.json").write_text(json.dumps(other))
    files = {"before": [SAMPLES / "before.json"], "candidate": [tmp_path / "c4.json"], "restored": [SAMPLES / "restored.json"]}
    assert _import(tmp_path, files=files) == 2
    assert "concurrency levels [4]" in capsys.readouterr().err
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "x").write_text("")
    assert _import(tmp_path) == 2 and "not empty" in capsys.readouterr().err
    assert _import(tmp_path / "x", "--concurrency", "2") == 2
    assert "only for files that do not" in capsys.readouterr().err


@pytest.mark.slow
def test_an_imported_trial_redacts_builds_signs_and_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 0
    site = redact_build_verify(tmp_path, capsys)
    model = _doc("before")["model_id"]
    published = [p for p in (site / "public").rglob("*") if p.is_file()]
    assert not any(model.encode() in p.read_bytes() for p in published)
    page = next(p for p in published if p.name == "index.html" and "decisions" in p.parts).read_text()
    assert "Imported from vllm bench serve" in page and "no counter reconciliation" in page
    assert "which times only the first token: visible-content TTFT is absent there, not zero" in page
    sha = hashlib.sha256((SAMPLES / "before.json").read_bytes()).hexdigest()
    assert any(sha.encode() in p.read_bytes() for p in published if p.suffix == ".jsonl")


def test_the_redactor_replaces_the_files_identities_and_the_scan_finds_one_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 0
    raw, evidence = tmp_path / "raw", tmp_path / "evidence"
    model = _doc("before")["model_id"]
    assert model.encode() in (raw / "imported" / "journals" / "01-original-before.jsonl").read_bytes()
    assert main(["redact", str(raw), "--out", str(evidence)]) == 0
    journals = sorted((evidence / "imported" / "journals").glob("*.jsonl"))
    assert journals and not any(model.encode() in j.read_bytes() for j in journals)
    # The original files' sha256 survive redaction: published hashes, not values to replace.
    assert hashlib.sha256((SAMPLES / "before.json").read_bytes()).hexdigest().encode() in journals[0].read_bytes()
    assert main(["scan", str(evidence), "--raw", str(raw)]) == 0
    leaked = journals[1].read_text().replace('"error":null', f'"error":"{model} timed out"', 1)
    journals[1].write_text(leaked)
    capsys.readouterr()
    assert main(["scan", str(evidence), "--raw", str(raw)]) == 1
    err = capsys.readouterr().err
    assert "private: imported/journals/02-candidate-candidate.jsonl" in err and model not in err


def test_an_import_is_judged_by_v4_unless_its_rule_file_names_a_version(tmp_path: Path) -> None:
    assert _import(tmp_path / "default") == 0
    (trial,) = load_decision(tmp_path / "default" / "raw").trials
    assert trial.trial.decision_rule.statistics == 4 and trial.trial.decision_rule.confidence == "bound"
    rule = tmp_path / "rule.toml"
    rule.write_text("[decision_rule]\nmin_improvement = 0.10\nstatistics = 3\n")
    assert _import(tmp_path / "v3", "--rule", str(rule)) == 0
    (trial,) = load_decision(tmp_path / "v3" / "raw").trials
    assert trial.trial.decision_rule.statistics == 3 and trial.trial.decision_rule.confidence == "point"
