"""The predeclared rule, warmup and failure exclusion, and what blocks a promotion."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.read import load_trial


def _spec(e2e: dict) -> dict:
    return {**REFERENCE_TRIALS["cache-layout"], "title": "rule test", "e2e": e2e}


FLAT = {g: (2.0, 2.0, 2.0) for g in GROUPS}


def test_one_win_promotes_under_any_group_but_not_all_groups(tmp_path: Path) -> None:
    e2e = {**FLAT, (8192, 4): (2.0, 1.7, 2.0)}  # 15 % faster than both controls in one group
    any_group = analyze(load_trial(write_trial_bundle(tmp_path / "a", "t", _spec(e2e)))).trials[0]
    assert (any_group.wins, any_group.outcome) == (1, "promote")
    assert [f.kind for f in any_group.findings] == ["win"]
    all_groups = analyze(load_trial(write_trial_bundle(tmp_path / "b", "t", _spec(e2e), promote_if="all-groups"))).trials[0]
    assert (all_groups.wins, all_groups.outcome) == (1, "no-promotion")


def test_exactly_the_threshold_counts_as_a_win(tmp_path: Path) -> None:
    e2e = {**FLAT, (8192, 1): (2.0, 1.8, 2.0)}  # exactly 10.00 %, which binary floats put at 9.999...
    trial = analyze(load_trial(write_trial_bundle(tmp_path, "t", _spec(e2e)))).trials[0]
    assert trial.wins == 1


def test_a_win_against_one_control_only_is_not_a_win(tmp_path: Path) -> None:
    e2e = {**FLAT, (8192, 1): (2.0, 1.7, 1.85)}  # 15 % vs before, 8.1 % vs restored
    trial = analyze(load_trial(write_trial_bundle(tmp_path, "t", _spec(e2e)))).trials[0]
    assert trial.wins == 0 and trial.outcome == "no-promotion"
    assert [f.kind for f in trial.findings] == ["split-verdict"]


def _rewrite(journal: Path, edit) -> None:
    """Apply ``edit`` to every record of a journal, keeping run and footer counts consistent."""
    records = [edit(json.loads(line)) for line in journal.read_text().splitlines()]
    runs: dict[str, list[dict]] = {}
    for r in records:
        if r["type"] == "request" and not r["warmup"]:
            runs.setdefault(r["run"], []).append(r)
    for r in records:
        if r["type"] == "run":
            r["ok"] = sum(x["ok"] for x in runs[r["run"]])
        if r["type"] == "footer":
            r["requests"] = sum(x["type"] == "request" for x in records)
            r["timed_requests"] = sum(x["type"] == "request" and not x["warmup"] for x in records)
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_warmup_and_failed_requests_never_enter_a_statistic(tmp_path: Path) -> None:
    bundle = write_trial_bundle(tmp_path, "t", _spec(FLAT))
    baseline = analyze(load_trial(bundle)).trials[0]

    def poison(record: dict) -> dict:
        if record["type"] == "request" and record["warmup"]:
            record["e2e_s"] = 999.0  # a warmup outlier must not move any median
        if record["type"] == "request" and record["run"] == "r2-8192-c1" and record["index"] == 0:
            record.update(ok=False, error="HTTP 503: engine overloaded", e2e_s=500.0, ttft_s=None, ttft_content_s=None)
        return record

    _rewrite(bundle / "journals/02-layout-candidate-candidate.jsonl", poison)
    _rewrite(bundle / "journals/01-original-before.jsonl", poison)
    trial = analyze(load_trial(bundle)).trials[0]
    g = next(g for g in trial.groups if (g.input_nominal, g.concurrency) == (8192, 1))
    base = next(g for g in baseline.groups if (g.input_nominal, g.concurrency) == (8192, 1))
    assert g.pooled["e2e_s"]["candidate"].n == 11 and base.pooled["e2e_s"]["candidate"].n == 12
    assert all(g.pooled["e2e_s"][p].median < 3 for p in ("before", "candidate", "restored"))
    assert (trial.timed_ok, trial.timed_planned) == (142, 144)
    assert [(f.phase, f.run, f.error) for f in trial.failures] == [
        ("before", "r2-8192-c1", "HTTP 503: engine overloaded"),
        ("candidate", "r2-8192-c1", "HTTP 503: engine overloaded"),
    ]
    run = next(r for r in trial.runs if r.phase == "candidate" and r.run == "r2-8192-c1")
    assert (run.requests, run.ok) == (4, 3)
    assert "failures" in [f.kind for f in trial.findings]
    assert trial.timed_failed == 2 and (trial.pooled_n_min, trial.pooled_n_max) == (11, 12)


def test_incomplete_evidence_blocks_a_promotion(tmp_path: Path) -> None:
    e2e = {**FLAT, (8192, 4): (2.0, 1.5, 2.0)}
    bundle = write_trial_bundle(tmp_path, "t", _spec(e2e))

    def fail_one(record: dict) -> dict:
        if record["type"] == "request" and record["run"] == "r1-32768-c1" and record["index"] == 1:
            record.update(ok=False, error="timeout after 600 s", e2e_s=None, ttft_s=None, ttft_content_s=None)
        if record["type"] == "gate" and record["name"] == "needle":
            record.update(ok=False, detail="the fact was not recalled")
        return record

    _rewrite(bundle / "journals/03-original-restored.jsonl", fail_one)
    trial = analyze(load_trial(bundle)).trials[0]
    assert trial.wins == 1 and trial.outcome == "no-promotion"
    assert trial.blocked_by == [
        "1 of 144 planned timed requests did not complete",
        "failed gates: restored:needle@direct, restored:needle@routed",
    ]
    assert not trial.restored_ok  # the restored arm's gates failed


def test_restoration_holds_only_when_the_slots_return(tmp_path: Path) -> None:
    held = analyze(load_trial(write_trial_bundle(tmp_path / "a", "t", _spec(FLAT))))
    assert held.trials[0].restored_ok and held.decision.restored_ok
    spec = {**_spec(FLAT), "slots": (1330579, 1844162, 1330000)}
    lost = analyze(load_trial(write_trial_bundle(tmp_path / "b", "t", spec)))
    assert not lost.trials[0].restored_ok and not lost.decision.restored_ok
    assert "slots-not-restored" in [f.kind for f in lost.trials[0].findings]
