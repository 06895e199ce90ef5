"""Whole trials on the simulator, each arm started by the plan's own start command, over real HTTP."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest

from evidence_kit.analyze.collected import collected_arms
from evidence_kit.collect import Progress, collect_trial, load_plan
from evidence_kit.commands.command_line import command_line
from evidence_kit.present import seconds
from evidence_kit.read import load_trial
from evidence_kit.text_report import collected_text

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow


class Notes(Progress):
    """The lines the collector shows while it runs."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def note(self, text: str) -> None:
        self.lines.append(text)


def checks(arm) -> dict[str, bool]:
    return {c.name: c.ok for c in arm.checks}


def test_a_b_a_trial_is_valid_reconciled_and_checked(tmp_path: Path, run_cli) -> None:
    plan = write_plan(
        tmp_path / "plan.toml",
        arms={
            "original": sim_arm("original", routed_url="{base_url}", label="Original"),
            "dflash": sim_arm("dflash-candidate", speculative=True, label="DFlash"),
        },
        gates=["smoke", "json", "tools", "streaming-tools", "tool-result"],
    )
    out = tmp_path / "raw"
    result = run_cli("collect", plan, "--out", out, "-q")
    assert result.code == 0, result.out + result.err

    evidence = load_trial(out)
    trial = evidence.trial
    assert trial.engine_kind == "simulated" and [a.label for a in trial.arms] == ["Original", "DFlash", "Original"]
    for arm in evidence.arms:
        assert len(arm.timed) == trial.workload.planned_per_arm == 12
        assert all(r.ok for r in arm.requests) and all(run.reconciled for run in arm.runs)
        assert [r.run for r in arm.requests if r.warmup] == ["warmup"]
        assert arm.header.engine.kv_token_slots and (arm.header.private.endpoint or "").startswith("http://127.0.0.1:")
        assert all(g.ok for g in arm.gates)
        assert checks(arm)["process-stable"]
        prefix = next(c for c in arm.checks if c.name == "prefix-cache")
        assert prefix.ok and prefix.level == "warning" and "0 prefix-cache hit tokens" in prefix.detail and "allow" in prefix.detail
        stem = Path(arm.ref.journal).stem
        assert (out / "logs" / f"{stem}.log").read_text().count("KV cache size") == 1
        samples = (out / "telemetry" / f"{stem}.jsonl").read_text().splitlines()
        assert len(samples) >= 2 and arm.footer.telemetry.gpu == "absent"
        assert arm.footer.telemetry.max_running is not None  # sampled, not invented
    before, candidate, restored = evidence.arms
    assert {g.target for g in before.gates} == {"direct", "routed"}
    assert checks(candidate)["spec-decode-active"]
    assert checks(restored)["identity-equality"] and checks(restored)["readmission"]
    removed = next(c for c in restored.checks if c.name == "candidate-removed")
    assert removed.ok and removed.level == "error" and "no longer answers" in removed.detail
    assert candidate.header.engine.kv_token_slots != before.header.engine.kv_token_slots
    # Same prompts in every arm: the same key has the same prompt token count everywhere.
    tokens = [{r.key: r.prompt_tokens for r in arm.timed} for arm in evidence.arms]
    assert tokens[0] == tokens[1] == tokens[2] and len(set(tokens[0])) == 12
    assert all(200 <= n <= 312 for n in tokens[0].values())  # sized near the 256 nominal
    assert not (out / ".collect-engine.json").exists()

    # It ends with each arm's timed requests and latencies (as the journals give them) and what to run next.
    table = result.out.split("Timed requests per arm", 1)[1]
    for arm in evidence.arms:
        e2e = statistics.median(r.e2e_s for r in arm.timed)
        ttft = sorted(r.ttft_s for r in arm.timed)[math.ceil(0.9 * 12) - 1]
        row = next(line for line in table.splitlines() if line.startswith(f"| {arm.ref.seq:02d} {arm.ref.arm} "))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1:4] == ["12/12", "0", seconds(e2e)] and cells[6] == seconds(ttft)
    # As printed for pasting: the script's path, quoted where the checkout's path holds a space.
    assert command_line("redact", out, "--out", Path(f"{out}-redacted"), "--map", Path(f"{out}-map.json")) in result.out
    assert f'trials = ["{trial.trial_id}"]' in result.out and command_line("verify", "site", "--key", "keys/signing.pub") in result.out

    assert run_cli("analyze", out).code == 0
    again = run_cli("collect", plan, "--out", out, "-q")
    assert again.code == 2 and "already holds a trial" in again.err
    other = write_plan(tmp_path / "other.toml", workload={"repetitions": 3})
    changed = run_cli("collect", other, "--out", out, "--resume", "-q")
    assert changed.code == 2 and "plan differs" in changed.err


def test_a_candidate_someone_else_runs_and_leaves_serving_is_a_warning(tmp_path: Path) -> None:
    from evidence_kit.engine_sim.server import running_simulator

    with running_simulator("layout-candidate", time_scale=50) as url:
        external = {"base_url": url, "model": "sim-org/sim-model-7b-simulated"}
        plan = write_plan(tmp_path / "plan.toml", arms={"original": sim_arm("original"), "layout": external})
        result = collect_trial(plan, tmp_path / "raw")
    restored = load_trial(tmp_path / "raw").arms[2]
    removed = next(c for c in restored.checks if c.name == "candidate-removed")
    assert not removed.ok and removed.level == "warning" and "STILL serves" in removed.detail
    assert result.ok  # not the collector's engine to remove: shown, not failed


def test_wrong_usage_is_caught_and_faults_become_failed_records(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path / "plan.toml",
        arms={
            "original": sim_arm("original"),
            "faulty": sim_arm("layout-candidate", extra="--fault wrong-usage=0.25 --fault drop=0.15", stop="exit 4"),
        },
    )
    notes = Notes()
    result = collect_trial(plan, tmp_path / "raw", progress=notes)
    evidence = load_trial(tmp_path / "raw")
    before, candidate, restored = evidence.arms
    assert all(run.reconciled for run in before.runs + restored.runs)
    unreconciled = [run for run in candidate.runs if run.reconciled is False]
    assert unreconciled and any("generation_tokens" in m for run in unreconciled for m in run.mismatches)
    dropped = [r for r in candidate.requests if not r.ok]
    assert dropped and all(r.error.startswith("disconnected") and r.e2e_s is None for r in dropped)
    # A dropped request finishes as "abort" on the engine: not counted as a completed request,
    # and a token mismatch it causes says so.
    mismatches = [m for run in candidate.runs for m in getattr(run, "mismatches", None) or []]
    assert not [m for m in mismatches if m.startswith("requests:")]
    with_drops = {r.run for r in dropped if not r.warmup}
    assert with_drops and all(any("failed" in m for m in run.mismatches) for run in candidate.runs if run.run in with_drops)
    assert len(candidate.timed) == 12
    stop = next(c for c in candidate.checks if c.name == "stop")  # the plan's stop command failed: on record
    assert not stop.ok and stop.level == "warning" and stop.detail == "stop command exited with status 4"
    assert not any(c.name == "stop" for c in before.checks + restored.checks)
    assert result.ok  # a mismatch is shown, not fatal; the engine was still ended (candidate-removed)
    # A warning is shown as one, never as FAILED: while collecting and in the summary at the end.
    assert "  check stop: warning (stop command exited with status 4)" in notes.lines
    assert not [line for line in notes.lines if "FAILED" in line]
    summary = collected_text(collected_arms(evidence))
    assert [line for line in summary if line.startswith("warning:")] == [
        "warning: 02 faulty (candidate): check stop did not pass (recorded; the arm stands)"
    ]
    row = next(line for line in summary if line.startswith("| 02 faulty (candidate)"))
    failed = sum(not r.ok for r in candidate.timed)
    assert failed and [c.strip() for c in row.strip("|").split("|")][1:3] == [f"{12 - failed}/12", str(failed)]


def test_a_flaky_metrics_endpoint_still_reconciles_every_run(tmp_path: Path) -> None:
    # Every second /metrics scrape of the candidate answers 503. The telemetry sampler scrapes
    # only at the arm's start and end (a long interval), so the run's own scrapes alternate
    # failing and answering: one retry before and after each run is enough to reconcile it.
    plan = write_plan(
        tmp_path / "plan.toml",
        telemetry_interval_s=1000.0,
        arms={
            "original": sim_arm("original"),
            "flaky": sim_arm("layout-candidate", extra="--fault metrics-503=0.5"),
        },
    )
    result = collect_trial(plan, tmp_path / "raw")
    candidate = load_trial(tmp_path / "raw").arms[1]
    assert len(candidate.runs) == 4 and all(run.reconciled is True for run in candidate.runs)
    assert checks(candidate)["process-stable"]  # no run lost its /metrics
    assert checks(candidate)["engine-kind"]  # the simulator, declared as one
    assert result.ok


def test_a_simulator_declared_as_vllm_runs_no_timed_work(tmp_path: Path) -> None:
    # Its numbers would be published without the "simulated" label: the arm stops before its gates.
    plan = write_plan(tmp_path / "plan.toml", engine_kind="vllm")
    result = collect_trial(plan, tmp_path / "raw")
    evidence = load_trial(tmp_path / "raw")
    assert not result.ok
    for arm in evidence.arms:
        kind = next(c for c in arm.checks if c.name == "engine-kind")
        assert not kind.ok and kind.level == "error" and "reports it is simulated" in kind.detail
        assert arm.requests == [] and arm.runs == [] and arm.gates == []


def test_failed_start_and_failed_gate_are_recorded_and_fail_the_trial(tmp_path: Path, run_cli) -> None:
    plan = write_plan(
        tmp_path / "plan.toml",
        arms={
            "original": sim_arm("original"),
            "broken": {**sim_arm("original"), "start": "echo 'cannot load /models/secret' >&2; exit 3"},
        },
    )
    out = tmp_path / "raw"
    result = run_cli("collect", plan, "--out", out, "-q")
    assert result.code == 1 and "check ready failed" in result.out
    evidence = load_trial(out)
    candidate = evidence.arms[1]
    assert not candidate.timed and checks(candidate) == {"ready": False}
    ready = next(c for c in candidate.checks if c.name == "ready")
    assert "status 3" in ready.detail and "/models/secret" not in ready.detail
    assert "/models/secret" in (ready.private.log_tail if ready.private else "")
    assert len(evidence.arms[2].timed) == 12  # the original is still restored and measured

    closed = write_plan(
        tmp_path / "gated.toml",
        arms={
            "original": sim_arm("original", routed_url="http://127.0.0.1:9"),
            "layout": sim_arm("layout-candidate"),
        },
    )
    summary = collect_trial(load_plan(closed), tmp_path / "gated")
    before = load_trial(tmp_path / "gated").arms[0]
    assert not summary.ok and not before.timed
    assert [(g.target, g.ok) for g in before.gates] == [("direct", True), ("routed", False)]
    assert any("gate smoke (routed) failed" in p for p in summary.problems)
