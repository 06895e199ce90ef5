"""Designs that correct drift, end to end on the simulator over real HTTP: an A/B/A/B/A trial in randomised
order and an A/B/B/A trial collected, redacted, analysed (drift figures from the journals by hand), built,
verified, and a hand-edited drift figure in the site's analysis.json caught by verify."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.collect import collect_trial
from evidence_kit.publish import build_site
from evidence_kit.read import load_decision
from evidence_kit.redact import redact_bundle

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow

DECISION = "2026-12-24-designs"
WORKLOAD = {"input_nominal": [128, 256], "concurrency": [1, 2], "repetitions": 2, "requests_per_run": 2, "warmup_requests": 1, "max_tokens": 24}


def _arms() -> dict[str, dict]:
    return {"original": sim_arm("original", label="Original"), "layout": sim_arm("layout-candidate", label="Layout")}


@pytest.fixture(scope="module")
def decision(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(raw decision folder, redacted decision folder) holding both trials."""
    base = tmp_path_factory.mktemp("designs")
    raw = base / "raw"
    raw.mkdir()
    plans = {
        "ababa": write_plan(
            base / "ababa.toml",
            trial_id="ababa",
            arms=_arms(),
            workload={**WORKLOAD, "order": "randomised", "seed": 11},
            sequence=["original", "layout", "original", "layout", "original"],
        ),
        "abba": write_plan(
            base / "abba.toml", trial_id="abba", arms=_arms(), workload=WORKLOAD, sequence=["original", "layout", "layout", "original"]
        ),
    }
    for name, plan in plans.items():
        result = collect_trial(plan, raw / name)
        assert result.ok, result.problems
    (raw / "decision.toml").write_text(f'id = "{DECISION}"\ndate = "2026-12-24"\ntitle = "Designs on the simulator"\ntrials = ["ababa", "abba"]\n')
    redacted = redact_bundle(raw, base / "decision", key=b"designs-test-key-0123456789abcdef")
    assert redacted.publishable
    return raw, redacted.out


def _block_medians(evidence) -> list[float]:
    """Each arm's median E2E of group (128, 1), from its journal's ok timed requests."""
    return [statistics.median(r.e2e_s for r in arm.timed if r.ok and (r.input_nominal, r.concurrency) == (128, 1)) for arm in evidence.arms]


def test_both_designs_collect_every_arm_and_every_run_in_order(decision) -> None:
    raw, _ = decision
    evidence = {t.trial.trial_id: t for t in load_decision(raw).trials}
    ababa, abba = evidence["ababa"], evidence["abba"]
    assert [(a.ref.phase, a.ref.block) for a in ababa.arms] == [("before", 1), ("candidate", 1), ("restored", 1), ("candidate", 2), ("restored", 2)]
    assert [(a.ref.phase, a.ref.block) for a in abba.arms] == [("before", 1), ("candidate", 1), ("candidate", 2), ("restored", 1)]
    trial_json = json.loads((raw / "ababa" / "trial.json").read_text())
    assert trial_json["workload"]["order"] == "randomised" and trial_json["workload"]["seed"] == 11
    assert "order" not in json.loads((raw / "abba" / "trial.json").read_text())["workload"]
    want = ababa.trial.workload.run_order()
    for arm in ababa.arms:  # every arm ran the same shuffled order, and every run once
        assert [(r.repetition, r.input_nominal, r.concurrency) for r in arm.runs] == want
        assert len(arm.timed) == ababa.trial.workload.planned_per_arm == 16 and all(r.ok for r in arm.timed)
    orders = [[(i, c) for rep, i, c in want if rep == n] for n in (1, 2)]
    assert orders[0] != orders[1]  # seed 11 gives each repetition its own order
    for arm in abba.arms:
        assert [(r.input_nominal, r.concurrency) for r in arm.runs][:4] == [(128, 1), (128, 2), (256, 1), (256, 2)]
    for trial in (ababa, abba):
        for arm in trial.arms:
            checks = {c.name: c.ok for c in arm.checks}
            if arm.ref.phase == "restored":  # every restored block checks restoration, the middle one too
                assert checks["identity-equality"] and checks["candidate-removed"], (arm.ref.journal, checks)
            assert checks["process-stable"]
        tokens = [{r.key: r.prompt_tokens for r in arm.timed} for arm in trial.arms]
        assert all(t == tokens[0] for t in tokens)  # the same prompts in every block


def test_the_analysis_reads_every_block(decision) -> None:
    _, redacted = decision
    analysis = analyze(load_decision(redacted))
    ababa, abba = analysis.trials
    assert (ababa.design, ababa.order, abba.design, abba.order) == ("A/B/A/B/A", "randomised", "A/B/B/A", "fixed")
    evidence = {t.trial.trial_id: t for t in load_decision(redacted).trials}

    y = _block_medians(evidence["ababa"])  # controls at seq 1, 3, 5; the candidate at 2 and 4
    g = next(g for g in ababa.groups if (g.input_nominal, g.concurrency) == (128, 1))
    assert [b.median for b in g.design.blocks] == y
    # Three controls, evenly spaced two apart: the least-squares slope is (y5 - y1) / 4 per position, and the
    # line at the candidate's mean position (3) is the mean of the three.
    assert g.design.drift_pct_per_arm == pytest.approx((y[4] - y[0]) / 4 / y[0] * 100, rel=1e-9)
    assert g.design.corrected_control == pytest.approx((y[0] + y[2] + y[4]) / 3, rel=1e-9)
    candidate = statistics.median(
        r.e2e_s for seq in (1, 3) for r in evidence["ababa"].arms[seq].timed if r.ok and (r.input_nominal, r.concurrency) == (128, 1)
    )
    assert g.pooled["e2e_s"]["candidate"].median == pytest.approx(candidate)
    assert g.design.change_vs_corrected_pct == pytest.approx((candidate / ((y[0] + y[2] + y[4]) / 3) - 1) * 100, rel=1e-9)
    assert [c.change_pct for c in g.design.vs_controls] == [pytest.approx((candidate / y[s] - 1) * 100, rel=1e-9) for s in (0, 2, 4)]
    assert (g.pooled["e2e_s"]["before"].median, g.pooled["e2e_s"]["restored"].median) == (y[0], y[4])

    z = _block_medians(evidence["abba"])  # controls at seq 1 and 4, the candidate at 2 and 3
    g = next(g for g in abba.groups if (g.input_nominal, g.concurrency) == (128, 1))
    assert g.design.drift_pct_per_arm == pytest.approx((z[3] - z[0]) / 3 / z[0] * 100, rel=1e-9)
    assert g.design.corrected_control == pytest.approx((z[0] + z[3]) / 2, rel=1e-9)
    assert ababa.restored_ok and abba.restored_ok
    assert (ababa.timed_ok, ababa.timed_planned, abba.timed_ok) == (80, 80, 64)


def test_built_site_verifies_and_a_hand_edited_drift_figure_fails(decision, tmp_path: Path, run_cli) -> None:
    _, redacted = decision
    site = tmp_path / "site"
    build_site([redacted], site)
    page = (site / "site" / "decisions" / DECISION / "index.md").read_text()
    assert "Design A/B/A/B/A, block by block." in page and "Design A/B/B/A, block by block." in page
    assert "| Group | Original before | Original restored 1 | Original restored 2 | Control drift per arm |" in page
    assert "in an order shuffled from the plan's seed" in page
    assert re.search(
        r"Sampled engine occupancy: at most \d+ running requests before, \d+ in candidate 1, \d+ in "
        r"restored 1, \d+ in candidate 2 and \d+ in restored 2 \(recomputed",
        page,
    )
    assert "FAILED" not in page and "restoration held" in page
    per_run = (site / "site" / "decisions" / DECISION / "ababa" / "summary.md").read_text()
    assert "| Layout 2 |" in per_run and "| Original restored 1 |" in per_run

    public = site / "public"
    ok = run_cli("verify", public, "--allow-unpinned")
    assert ok.code == 0, ok.out
    assert "2 trial(s)" in ok.out and "9 journal(s)" in ok.out

    path = public / "decisions" / DECISION / "analysis.json"
    doc = json.loads(path.read_text())
    published = doc["trials"][0]["groups"][0]["design"]["drift_pct_per_arm"]
    doc["trials"][0]["groups"][0]["design"]["drift_pct_per_arm"] = published + 1.0
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    bad = run_cli("verify", public, "--allow-unpinned")
    assert bad.code == 1
    assert "trials[0].groups[0].design.drift_pct_per_arm: published" in bad.out, bad.out


def test_a_randomised_trial_resumed_after_kill_9_loses_and_doubles_nothing(tmp_path: Path) -> None:
    from collections import Counter

    from evidence_kit.read import load_trial

    from .test_resume import _kill_collector_mid_arm

    plan = write_plan(
        tmp_path / "plan.toml",
        arms=_arms(),
        workload={**WORKLOAD, "order": "randomised", "seed": 11},
        sequence=["original", "layout", "layout", "original"],
    )
    out = tmp_path / "raw"
    kept = _kill_collector_mid_arm(plan, out, out / "journals" / "01-original-before.jsonl")
    result = collect_trial(plan, out, resume=True)
    assert result.ok, result.problems
    evidence = load_trial(out)  # the reader holds every journal to the recorded order
    want = evidence.trial.workload.run_order()
    for arm in evidence.arms:
        assert [(r.repetition, r.input_nominal, r.concurrency) for r in arm.runs] == want
        timed = Counter((r.run, r.index) for r in arm.timed)
        assert len(timed) == evidence.trial.workload.planned_per_arm and set(timed.values()) == {1}
    before = evidence.arms[0]
    assert [r.resumed for r in before.runs].index(True) == kept  # the first run the resumed collector measured
