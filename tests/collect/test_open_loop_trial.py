"""An open-loop trial end to end on the simulator over real HTTP: Poisson arrivals at a rate, judged by
goodput under declared SLOs, collected in one process and with two worker processes, redacted, analysed
(achieved rates, send lags and goodput recomputed here from the journals by hand), built and verified, and a
hand-edited goodput figure caught by verify."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.collect import collect_trial
from evidence_kit.collect.arrivals import schedule
from evidence_kit.publish import build_site
from evidence_kit.read import load_decision, load_trial
from evidence_kit.redact import redact_bundle

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow

DECISION = "2026-12-25-open-loop"
RATE, PER_RUN, SEED = 8.0, 6, 5
SLO = {"ttft_ms": 400.0, "e2e_ms": 1500.0}


def _plan(path: Path, workers: int) -> Path:
    arms = {"original": sim_arm("original", label="Original"), "layout": sim_arm("layout-candidate", label="Layout")}
    plan = write_plan(
        path,
        trial_id="open",
        arms=arms,
        workload={
            "rate": [RATE],
            "repetitions": 2,
            "requests_per_run": PER_RUN,
            "warmup_requests": 1,
            "max_tokens": 24,
            "seed": SEED,
            "workers": workers,
        },
    )
    text = "\n".join(line for line in plan.read_text().splitlines() if not line.startswith("concurrency ="))
    text = text.replace("[decision_rule]\n", '[decision_rule]\nmetric = "goodput"\n')
    plan.write_text(text + "\n[slo]\n" + "".join(f"{k} = {v!r}\n" for k, v in SLO.items()))
    return plan


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """workers -> the raw trial bundle collected with that many worker processes (1: the collector alone)."""
    base = tmp_path_factory.mktemp("open-loop")
    out = {}
    for workers in (1, 2):
        result = collect_trial(_plan(base / f"plan{workers}.toml", workers), base / f"raw{workers}" / "open")
        assert result.ok, result.problems
        out[workers] = base / f"raw{workers}" / "open"
    return out


def test_every_arm_and_repetition_offers_the_same_schedule_and_each_send_lag_is_measured_from_it(collected) -> None:
    want = [round(x, 6) for x in schedule(PER_RUN, RATE, "poisson", seed=SEED, input_nominal=256)]
    for workers, bundle in collected.items():
        evidence = load_trial(bundle)
        assert evidence.trial.workload.rate == [RATE] and evidence.trial.workload.arrival == "poisson"
        for arm in evidence.arms:
            assert [run.run for run in arm.runs] == ["r1-256-rate8.0", "r2-256-rate8.0"]
            for run in arm.runs:
                assert run.rate == RATE and run.concurrency is None and run.t_start_s is not None
                requests = [r for r in arm.timed if r.run == run.run]
                assert [r.scheduled_s for r in requests] == want, (workers, arm.ref.journal, run.run)
                for r in requests:
                    assert r.rate == RATE and r.concurrency is None
                    # The lag the client journalled is its send time less the schedule's due time (each rounded
                    # to the microsecond), however many processes sent.
                    assert r.t_send_s is not None and r.send_wait_s is not None and r.scheduled_s is not None
                    assert abs(r.send_wait_s - (r.t_send_s - run.t_start_s - r.scheduled_s)) <= 3e-6
                    assert r.ok
            assert all(run.reconciled for run in arm.runs)
            if workers == 2:
                assert {len(run.client.processes) for run in arm.runs if run.client} == {3}


def test_achieved_rates_and_goodput_are_what_the_journals_give(collected) -> None:
    evidence = load_trial(collected[1])
    trial = analyze(evidence).trials[0]
    assert [g.label for g in trial.groups] == [f"{trial.groups[0].input_label}/R8.0"]
    group = trial.groups[0]
    assert group.rate == RATE and group.concurrency is None
    for run in trial.runs:
        requests = [r for r in evidence.arms[run.seq - 1].timed if r.run == run.run]
        sends = [r.t_send_s for r in requests]
        due = [r.scheduled_s for r in requests]
        assert run.client is not None and run.rate == RATE
        assert run.client.achieved_rate_per_s == pytest.approx((len(sends) - 1) / (max(sends) - min(sends)), rel=1e-12)
        assert run.client.scheduled_rate_per_s == pytest.approx((len(due) - 1) / (max(due) - min(due)), rel=1e-12)
        assert run.client.rate_shortfall == pytest.approx(1 - run.client.achieved_rate_per_s / run.client.scheduled_rate_per_s, abs=1e-12)
    assert group.load is not None
    for phase, arms in (("before", [0]), ("candidate", [1]), ("restored", [2])):
        timed = [r for i in arms for r in evidence.arms[i].timed]
        good = [r.ok and r.ttft_s * 1000 <= SLO["ttft_ms"] and r.e2e_s * 1000 <= SLO["e2e_ms"] for r in timed]
        load = group.load[phase]
        assert (load.requests, load.good) == (len(timed), sum(good))
        assert load.share == pytest.approx(sum(good) / len(timed))
        runs = {}
        for r in timed:
            runs.setdefault(r.run, []).append(r)
        started = sum(len(rs) - 1 for rs in runs.values())
        span = sum(max(r.t_send_s for r in rs) - min(r.t_send_s for r in rs) for rs in runs.values())
        assert load.achieved_rate_per_s == pytest.approx(started / span, rel=1e-12)
        busy = sum(max(r.t_send_s + r.e2e_s for r in rs) - min(r.t_send_s for r in rs) for rs in runs.values())
        assert load.good_rate_per_s == pytest.approx(sum(good) / busy, rel=1e-12)
    goodput = {c.control: c for c in group.comparisons["goodput"]}
    for control in ("before", "restored"):
        ratio = group.load["candidate"].share / group.load[control].share
        assert goodput[control].change_pct == pytest.approx((ratio - 1) * 100)
        assert goodput[control].improvement_pct == pytest.approx((ratio - 1) * 100)  # higher is better
    assert trial.rule.metric == "goodput" and trial.rule.statistic == "share"
    assert trial.client_runs_recorded == trial.runs_total == 6


def test_the_open_loop_trial_builds_and_verifies_and_a_hand_edited_goodput_fails(collected, tmp_path: Path, run_cli) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copytree(collected[1], raw / "open")
    (raw / "decision.toml").write_text(f'id = "{DECISION}"\ndate = "2026-12-25"\ntitle = "Open loop on the simulator"\ntrials = ["open"]\n')
    redacted = redact_bundle(raw, tmp_path / "decision", key=b"open-loop-test-key-0123456789abcd").out
    assert len(load_decision(redacted).trials) == 1
    site = tmp_path / "site"
    build_site([redacted], site)
    page = (site / "site" / "decisions" / DECISION / "index.md").read_text()
    assert "Goodput: the share of timed requests" in page and "R8.0" in page and "achieved rate" in page
    summary = (site / "site" / "decisions" / DECISION / "open" / "summary.md").read_text()
    assert "Rate achieved / planned" in summary and "/ 8.0/s" in summary
    public = site / "public"
    ok = run_cli("verify", public, "--allow-unpinned")
    assert ok.code == 0, ok.out
    path = public / "decisions" / DECISION / "analysis.json"
    doc = json.loads(path.read_text())
    doc["trials"][0]["groups"][0]["load"]["candidate"]["share"] += 0.01
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    bad = run_cli("verify", public, "--allow-unpinned")
    assert bad.code == 1 and "trials[0].groups[0].load.candidate.share: published" in bad.out, bad.out
