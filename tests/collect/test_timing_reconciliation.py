"""Timing reconciliation end to end: the simulator's histograms journalled around every run, and the
analysis's gaps exactly what the journal's raw values give."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze_trial
from evidence_kit.analyze.timing import HISTOGRAMS
from evidence_kit.read import load_trial

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow


def test_the_engine_timings_are_journalled_and_every_gap_recomputes_from_them(tmp_path: Path, run_cli) -> None:
    plan = write_plan(
        tmp_path / "plan.toml", arms={"original": sim_arm("original"), "faulty": sim_arm("layout-candidate", extra="--fault drop=0.25")}
    )
    plan.write_text(plan.read_text().replace("min_improvement = 0.1\n", "min_improvement = 0.1\nmax_timing_gap_ms = 5000\n"))
    out = tmp_path / "raw"
    assert run_cli("collect", plan, "--out", out, "-q").code == 0
    assert json.loads((out / "trial.json").read_text())["decision_rule"]["max_timing_gap_ms"] == 5000

    evidence = load_trial(out)
    analysis = analyze_trial(evidence)
    failed_runs = 0
    for arm in evidence.arms:
        stats = [r for r in analysis.runs if r.seq == arm.ref.seq]
        for run, stat in zip(arm.runs, stats):
            assert run.counters is not None
            requests = [r for r in arm.timed if r.run == run.run]
            failed = [r for r in requests if not r.ok]
            failed_runs += bool(failed)
            for gap in stat.timing:
                sum_name, count_name = HISTOGRAMS[gap.metric]
                (s0, s1), (n0, n1) = run.counters[sum_name], run.counters[count_name]
                client = [getattr(r, gap.metric) for r in requests if r.ok]
                assert gap.engine_count == n1 - n0 and gap.client_count == len(client)
                if gap.metric == "ttft_s" and failed:
                    # Dropped mid-stream, after their first token: the engine timed their TTFT.
                    assert (gap.status, gap.engine_count) == ("count-mismatch", len(client) + len(failed))
                    continue
                # An abandoned request has no end-to-end time on the engine: the ok ones are compared.
                assert gap.status == "compared", (arm.ref.phase, run.run, gap)
                expected = (math.fsum(client) / len(client) - (s1 - s0) / (n1 - n0)) * 1000
                assert gap.gap_ms == pytest.approx(expected, rel=1e-12, abs=1e-9)
                # The engine's clock runs inside the client's (after the request arrived, before the reply left).
                assert gap.gap_ms > 0 and not gap.beyond_bound
    assert failed_runs and not any(f.kind == "timing-gap" for f in analysis.findings)

    text = run_cli("analyze", out).out
    assert "Engine timing, before: client-side TTFT exceeds the engine's by" in text and "Declared bound: 5000 ms" in text
    assert "Engine timing, candidate: client-side TTFT exceeds" in text and "TTFT not comparable in" in text

    # The same journals under a bound no real gap stays within: every compared run is beyond it.
    evidence.trial.decision_rule.max_timing_gap_ms = 1e-6
    strict = analyze_trial(evidence)
    beyond = sum(any(g.beyond_bound for g in run.timing) for run in strict.runs)
    assert beyond == len(strict.runs) and strict.outcome == "no-promotion"
    assert [f.values.phase for f in strict.findings if f.kind == "timing-gap" and f.values.metric == "e2e_s"] == ["before", "candidate", "restored"]
