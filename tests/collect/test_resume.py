"""kill -9 of the collector mid-trial, then --resume: every completed request exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.collect.journal_writer import encode_record
from evidence_kit.collect.metrics import parse_metrics
from evidence_kit.collect.state import STATE_FILE
from evidence_kit.read import load_trial

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow


def _runs_in(path: Path) -> int:
    return path.read_bytes().count(b'{"type":"run"') if path.exists() else 0


def _committed_runs(path: Path) -> int:
    """Run records on complete lines (a line the kill tore has no newline yet)."""
    lines = path.read_bytes().splitlines(keepends=True)
    return sum(line.startswith(b'{"type":"run"') and line.endswith(b"\n") for line in lines)


def _kill_collector_mid_arm(plan: Path, out: Path, journal: Path) -> int:
    """Start ``collect``, SIGKILL it once the arm committed two runs; the runs it committed."""
    collector = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(out), "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while _runs_in(journal) < 2 and time.monotonic() < deadline and collector.poll() is None:
        time.sleep(0.01)
    collector.send_signal(signal.SIGKILL)
    collector.wait(timeout=10)
    kept = _committed_runs(journal)
    assert 2 <= kept < 6, "the kill must land inside the first arm"
    return kept


def _process_start(endpoint: str) -> float:
    """The engine's own ``process_start_time_seconds``, read from its /metrics."""
    return parse_metrics(httpx.get(f"{endpoint}/metrics", timeout=10).text).values["process_start_time_seconds"]


def test_kill_9_then_resume_keeps_every_completed_request_once(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 3})
    out = tmp_path / "raw"
    journal = out / "journals" / "01-original-before.jsonl"
    _kill_collector_mid_arm(plan, out, journal)

    state = (out / STATE_FILE).read_text()
    orphan = int(state.split('"pgid": ')[1].split(",")[0])
    os.killpg(orphan, 0)  # the engine outlived its collector
    kept = journal.read_bytes()[: journal.read_bytes().rfind(b'{"type":"run"')]
    with journal.open("ab") as handle:  # and the kill tore a line mid-write
        handle.write(encode_record({"type": "request", "run": "r9-256-c1", "repetition": 1})[:30])

    result = collect_trial(plan, out, resume=True)
    assert result.ok, result.problems
    with pytest.raises(ProcessLookupError):
        os.killpg(orphan, 0)  # the orphan engine was ended before resuming

    evidence = load_trial(out)
    for arm in evidence.arms:
        timed = Counter((r.run, r.index) for r in arm.timed)
        assert len(timed) == evidence.trial.workload.planned_per_arm == 18 and set(timed.values()) == {1}
        assert sorted(r.run for r in arm.runs) == sorted({r.run for r in arm.timed})
    before = evidence.arms[0]
    assert journal.read_bytes().startswith(kept)  # what was committed stays byte for byte
    assert any(c.name == "resumed" and c.ok for c in before.checks)
    assert [r.run for r in before.requests if r.warmup] == ["warmup", "warmup"]  # warmed up again after restart
    # The telemetry series spans both sessions, and the footer's summary covers all of it.
    from evidence_kit.analyze import analyze

    trial = analyze(evidence).trials[0]
    series = [json.loads(line) for line in (out / "telemetry" / "01-original-before.jsonl").read_text().splitlines()]
    assert [s["t_s"] for s in series] == sorted(s["t_s"] for s in series)  # one time axis across both sessions
    assert sum(bool(s.get("resumed")) for s in series) == 1
    assert trial.arms[0].telemetry.samples == before.footer.telemetry.samples > 2
    assert "telemetry-mismatch" not in [f.kind for f in trial.findings]
    # Client health is per run: the runs committed before the kill keep theirs, the resumed collector's have
    # their own (the downtime is in no run's wall time), and every run is checked.
    resumed = next(run for run in before.runs if run.resumed)
    assert resumed.client is not None and trial.client_runs_recorded == trial.runs_total == 18


def test_a_resume_on_a_new_engine_process_says_which_processes_measured_the_arm(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 3})
    out = tmp_path / "raw"
    journal = out / "journals" / "01-original-before.jsonl"
    kept = _kill_collector_mid_arm(plan, out, journal)
    first = _process_start(json.loads(journal.read_bytes().splitlines()[0])["private"]["endpoint"])

    result = collect_trial(plan, out, resume=True)  # the plan's start command starts a new engine
    assert result.ok, result.problems  # a restart the resume itself made is known: shown, the arm stands

    before = load_trial(out).arms[0]
    stable = next(c for c in before.checks if c.name == "process-stable")
    assert not stable.ok and stable.level == "warning"
    assert "engine process changed during the arm" in stable.detail
    assert f"resumed at run {kept + 1}" in stable.detail
    assert before.runs[kept].resumed  # the run where the resumed collector took over says so
    second = before.runs[kept].process_start_times_s
    assert second and second[0] != first
    later = f"runs {kept + 1}-6" if kept < 5 else "run 6"
    assert f"start times {first!r} (runs 1-{kept}), {second[0]!r} ({later})" in stable.detail
    # The other arms ran on one engine each, uninterrupted.
    assert all(c.ok for arm in load_trial(out).arms[1:] for c in arm.checks if c.name == "process-stable")


def test_a_resume_on_the_same_engine_process_still_says_stable(tmp_path: Path) -> None:
    from evidence_kit.engine_sim.server import running_simulator

    with running_simulator("original", time_scale=50) as url:
        # An endpoint the plan does not start: it outlives the killed collector, unchanged.
        original = {"base_url": url, "model": "sim-org/sim-model-7b-simulated"}
        plan = write_plan(tmp_path / "plan.toml", arms={"original": original, "layout": sim_arm("layout-candidate")}, workload={"repetitions": 3})
        out = tmp_path / "raw"
        journal = out / "journals" / "01-original-before.jsonl"
        kept = _kill_collector_mid_arm(plan, out, journal)
        start = _process_start(url)
        collect_trial(plan, out, resume=True)
    before = load_trial(out).arms[0]
    stable = next(c for c in before.checks if c.name == "process-stable")
    assert stable.ok and stable.level == "error"
    assert stable.detail == (f"the engine's reported process start time never changed, across the resume at run {kept + 1}")
    assert {t for run in before.runs for t in run.process_start_times_s or ()} == {start}


def test_ctrl_c_stops_cleanly_and_leaves_a_resumable_journal(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 3})
    out = tmp_path / "raw"
    journal = out / "journals" / "02-layout-candidate.jsonl"
    collector = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 90
    while _runs_in(journal) < 1 and time.monotonic() < deadline and collector.poll() is None:
        time.sleep(0.01)
    collector.send_signal(signal.SIGINT)
    _, err = collector.communicate(timeout=60)
    assert collector.returncode == 130 and "--resume" in err and "Traceback" not in err
    assert not (out / STATE_FILE).exists()  # the engine it started was stopped, not orphaned
    assert not journal.read_bytes().endswith(b'"type":"footer"') and journal.read_bytes().endswith(b"\n")

    assert collect_trial(plan, out, resume=True).ok
    assert all(len(arm.timed) == 18 for arm in load_trial(out).arms)


def test_an_arm_redone_from_scratch_drops_the_telemetry_of_its_discarded_attempt(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 1})
    out = tmp_path / "raw"
    assert collect_trial(plan, out).ok
    journal = out / "journals" / "02-layout-candidate.jsonl"
    telemetry = out / "telemetry" / "02-layout-candidate.jsonl"
    # As if the collector died after the candidate's preamble, before its first run.
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(lines[0] + lines[1][:10])
    (out / "journals" / "03-original-restored.jsonl").unlink()

    assert collect_trial(plan, out, resume=True).ok
    samples = [json.loads(line) for line in telemetry.read_text().splitlines()]
    assert [s["t_s"] for s in samples] == sorted(s["t_s"] for s in samples)  # one series, not two
    assert len(samples) == load_trial(out).arms[1].footer.telemetry.samples


def test_a_resumed_restored_arm_judges_the_candidate_as_the_uninterrupted_one_did(tmp_path: Path) -> None:
    from evidence_kit.engine_sim.server import running_simulator

    with running_simulator("layout-candidate", time_scale=50) as url:
        # The plan stops this candidate (a stop command), so it is the plan's to remove:
        # still serving afterwards is a failure, resumed or not.
        candidate = {"base_url": url, "model": "sim-org/sim-model-7b-simulated", "stop": "true"}
        plan = write_plan(tmp_path / "plan.toml", arms={"original": sim_arm("original"), "layout": candidate}, workload={"repetitions": 1})
        out = tmp_path / "raw"
        collect_trial(plan, out)
        (out / "journals" / "03-original-restored.jsonl").unlink()  # interrupted before the restored arm
        collect_trial(plan, out, resume=True)
    removed = next(c for c in load_trial(out).arms[2].checks if c.name == "candidate-removed")
    assert not removed.ok and removed.level == "error"
