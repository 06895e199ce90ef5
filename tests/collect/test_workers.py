"""Worker processes: the timed requests of each run streamed by N real processes, the journal by one writer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.collect import collect_trial, load_plan
from evidence_kit.collect.plan import STREAMS_PER_WORKER, resolve_workers
from evidence_kit.read import load_trial

from .conftest import assert_workload_key_refused, write_plan

WORKER_MODULE = b"evidence_kit.collect.worker_process"


def _workers_of(parent: int) -> list[int]:
    """The live worker processes whose parent is ``parent`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == parent and WORKER_MODULE in cmdline and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _records(out: Path) -> list[list[tuple[str, str, int | None, str | None, tuple[str, ...]]]]:
    """Per journal: each record's type, run, index, key and field names, in journal order."""
    shapes = []
    for journal in sorted((out / "journals").glob("*.jsonl")):
        rows = [json.loads(line) for line in journal.read_text().splitlines()]
        shapes.append([(r["type"], r.get("run"), r.get("index"), r.get("key"), tuple(r)) for r in rows if r["type"] in ("request", "run")])
    return shapes


@pytest.mark.slow
def test_two_workers_write_the_journals_one_process_writes(tmp_path: Path) -> None:
    shapes = {}
    for workers in (1, 2):
        plan = write_plan(tmp_path / f"plan{workers}.toml", workload={"workers": workers})
        out = tmp_path / f"raw{workers}"
        result = collect_trial(plan, out)
        assert result.ok, result.problems
        assert _workers_of(os.getpid()) == []  # every worker ended with its arm
        evidence = load_trial(out)
        for arm in evidence.arms:
            assert all(run.reconciled for run in arm.runs)
            assert {len(run.client.processes) for run in arm.runs if run.client} == {1 + (workers > 1) * workers}
            assert len(arm.runs) == 4
        trial = analyze(evidence).trials[0]
        assert trial.client_runs_recorded == trial.runs_total == 12
        shapes[workers] = _records(out)
    # The same records, in the same order, with the same fields: only the timings differ.
    assert shapes[1] == shapes[2]


@pytest.mark.slow
def test_analyze_sums_every_process_and_takes_the_busiest_loop(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"workers": 3, "concurrency": [3], "repetitions": 1})
    out = tmp_path / "raw"
    assert collect_trial(plan, out).ok
    evidence = load_trial(out)
    trial = analyze(evidence).trials[0]
    records = {(arm.ref.seq, run.run): run for arm in evidence.arms for run in arm.runs}
    assert len(trial.runs) == len(records) == 3
    for run_stats in trial.runs:
        health = records[(run_stats.seq, run_stats.run)].client
        assert health is not None and run_stats.client is not None
        assert run_stats.client.processes == len(health.processes) == 4
        assert run_stats.client.cpu_s == pytest.approx(sum(p.cpu_s for p in health.processes))
        busiest = max(p.loop_cpu_s for p in health.processes)
        assert run_stats.client.loop_cpu_share == pytest.approx(busiest / health.wall_s)


def _collect(plan: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(out), "-q", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_runs(journal: Path, runs: int, collector: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and collector.poll() is None:
        if journal.exists() and journal.read_bytes().count(b'{"type":"run"') >= runs:
            return
        time.sleep(0.005)
    raise AssertionError("the collector did not commit the runs in time")


def _every_request_once(out: Path, per_arm: int) -> None:
    evidence = load_trial(out)
    for arm in evidence.arms:
        timed = Counter((r.run, r.index) for r in arm.timed)
        assert len(timed) == per_arm and set(timed.values()) == {1}
        assert sorted(r.run for r in arm.runs) == sorted({r.run for r in arm.timed})


@pytest.mark.slow
def test_kill_9_of_the_collector_ends_its_workers_and_resume_loses_and_doubles_nothing(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 3, "workers": 2})
    out = tmp_path / "raw"
    collector = _collect(plan, out)
    _wait_for_runs(out / "journals" / "01-original-before.jsonl", 2, collector)
    workers = _workers_of(collector.pid)
    assert len(workers) == 2
    collector.send_signal(signal.SIGKILL)
    collector.communicate(timeout=10)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers), "a worker outlived its collector"

    result = collect_trial(plan, out, resume=True)
    assert result.ok, result.problems
    _every_request_once(out, 18)
    assert all(len(run.client.processes) == 3 for arm in load_trial(out).arms for run in arm.runs if run.client)


@pytest.mark.slow
def test_a_worker_killed_mid_run_is_a_clear_error_and_the_run_is_redone_on_resume(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 3, "workers": 2})
    out = tmp_path / "raw"
    journal = out / "journals" / "01-original-before.jsonl"
    collector = _collect(plan, out)
    _wait_for_runs(journal, 1, collector)
    victim = _workers_of(collector.pid)[1]
    os.kill(victim, signal.SIGKILL)
    _, err = collector.communicate(timeout=60)  # bounded: a dead worker never hangs the collector
    assert collector.returncode == 1, err
    assert "worker 1" in err and f"pid {victim}" in err and "killed by signal 9" in err and "--resume" in err
    assert "Traceback" not in err
    assert journal.read_bytes().endswith(b"\n")
    assert _workers_of(collector.pid) == []

    assert collect_trial(plan, out, resume=True, workers=2).ok
    _every_request_once(out, 18)


@pytest.mark.slow
def test_ctrl_c_with_workers_stops_cleanly(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 3, "workers": 2})
    out = tmp_path / "raw"
    # In its own session, so Ctrl-C can go to its whole process group, as a terminal sends it.
    collector = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    _wait_for_runs(out / "journals" / "01-original-before.jsonl", 1, collector)
    workers = _workers_of(collector.pid)
    os.killpg(collector.pid, signal.SIGINT)
    _, err = collector.communicate(timeout=60)
    assert collector.returncode == 130 and "--resume" in err and "Traceback" not in err
    assert workers and not any(_alive(pid) for pid in workers)


@pytest.mark.parametrize("value", ["0", "-1", '"many"', "65", "true", "2.5", "4"])
def test_a_bad_workers_value_names_the_file_and_line(tmp_path: Path, value: str) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"concurrency": [1, 3]})
    assert_workload_key_refused(plan, "workers", value, "workers")


def test_bad_workers_option_exits_2_with_one_line(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml")
    for value in ("0", "many", "9"):
        done = subprocess.run(
            [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(tmp_path / "raw"), "--workers", value],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "--workers" in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "raw").exists()


def test_auto_gives_what_the_load_needs_at_most_the_cores() -> None:
    assert resolve_workers("auto", [1, 4]) == 1  # the demo's loads: the collector's own process, as always
    assert resolve_workers("auto", [STREAMS_PER_WORKER]) == 1
    assert resolve_workers("auto", [STREAMS_PER_WORKER + 1], cores=8) == 2
    assert resolve_workers("auto", [10 * STREAMS_PER_WORKER], cores=4) == 4
    assert resolve_workers(3, [8], cores=1) == 3  # asked for: given
    assert load_plan(Path(__file__).parents[2] / "evidence_kit/examples/plans/sim-layout.toml").workload.workers == "auto"
