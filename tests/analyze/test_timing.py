"""Timing reconciliation: every figure is the journal's histogram deltas and the client's requests,
recomputed here from the records; what cannot be compared says so, and never "did not reconcile"."""

from __future__ import annotations

import json
import math

import pytest

from evidence_kit.analyze import analyze_trial
from evidence_kit.examples.synthetic import synthetic_trial
from evidence_kit.model import Run
from evidence_kit.model.evidence import TrialEvidence
from evidence_kit.present import finding_sentence, reconciled_text, timing_run_rows, timing_sentences

RUNS = {"before": [[1.0, 1.2], [1.1, 1.3]], "candidate": [[0.8, 0.9], [0.85, 0.95]], "restored": [[1.0, 1.1], [1.2, 1.0]]}
BASE = {"requests": [100.0, 102.0], "prompt_tokens": [0.0, 16384.0], "generation_tokens": [0.0, 200.0]}


def _trial(bound_ms: float | None = None) -> TrialEvidence:
    evidence = synthetic_trial("timing", RUNS)
    evidence.trial.decision_rule.max_timing_gap_ms = bound_ms
    return evidence


def _histograms(ttft: tuple[float, float], e2e: tuple[float, float]) -> dict[str, list[float]]:
    """Counters whose deltas are ``(sum, count)`` for each histogram, on top of earlier traffic."""
    return {
        "ttft_seconds_sum": [50.0, 50.0 + ttft[0]],
        "ttft_seconds_count": [100.0, 100.0 + ttft[1]],
        "e2e_seconds_sum": [400.0, 400.0 + e2e[0]],
        "e2e_seconds_count": [100.0, 100.0 + e2e[1]],
    }


def _add_runs(evidence: TrialEvidence, engine_less_s: float = 0.003, **overrides: dict) -> None:
    """A run record per run, whose histograms say the engine saw each request ``engine_less_s`` shorter."""
    for arm in evidence.arms:
        for repetition in (1, 2):
            name = f"r{repetition}-8192-c4"
            requests = [r for r in arm.timed if r.run == name]
            ttft = math.fsum(r.ttft_s for r in requests) - engine_less_s * len(requests)
            e2e = math.fsum(r.e2e_s for r in requests) - engine_less_s * len(requests)
            counters = {**BASE, **_histograms((ttft, len(requests)), (e2e, len(requests)))}
            fields = {
                "type": "run",
                "run": name,
                "repetition": repetition,
                "input_nominal": 8192,
                "concurrency": 4,
                "requests": len(requests),
                "ok": len(requests),
                "reconciled": True,
                "counters": counters,
                **overrides.get(f"{arm.ref.phase}/{name}", {}),
            }
            arm.runs.append(Run.model_validate_json(json.dumps(fields)))  # as the reader reads a line


def _recomputed(run: Run, requests, sum_name: str, count_name: str, metric: str) -> float:
    (s0, s1), (n0, n1) = run.counters[sum_name], run.counters[count_name]
    client = [getattr(r, metric) for r in requests if r.ok]
    return (sum(client) / len(client) - (s1 - s0) / (n1 - n0)) * 1000


def test_the_gap_is_the_client_mean_less_the_histogram_mean_recomputed_from_the_journal() -> None:
    evidence = _trial()
    _add_runs(evidence)
    analysis = analyze_trial(evidence)
    for arm in evidence.arms:
        stats = [r for r in analysis.runs if r.seq == arm.ref.seq]
        for run, stat in zip(arm.runs, stats):
            requests = [r for r in arm.timed if r.run == run.run]
            ttft, e2e = stat.timing
            assert (ttft.metric, e2e.metric) == ("ttft_s", "e2e_s")
            assert ttft.status == e2e.status == "compared" and ttft.client_count == ttft.engine_count == 2
            assert ttft.gap_ms == pytest.approx(_recomputed(run, requests, "ttft_seconds_sum", "ttft_seconds_count", "ttft_s"))
            assert e2e.gap_ms == pytest.approx(_recomputed(run, requests, "e2e_seconds_sum", "e2e_seconds_count", "e2e_s"))
            assert e2e.gap_ms == pytest.approx(3.0) and not e2e.beyond_bound
    summary = analysis.arms[0].timing[1]
    assert (summary.runs_compared, summary.requests_compared, summary.runs_beyond_bound) == (2, 4, 0)
    assert summary.mean_gap_ms == pytest.approx(3.0)
    assert not any(f.kind == "timing-gap" for f in analysis.findings) and analysis.blocked_by == []
    lines = timing_sentences(analysis)
    assert lines[0] == (
        "Engine timing, before: client-side TTFT exceeds the engine's by 3.0 ms on average (2 runs); "
        "client-side end-to-end time exceeds the engine's by 3.0 ms on average (2 runs)."
    )
    assert "network" in lines[-2] and "shown, not checked" in lines[-1]


def test_a_gap_beyond_the_declared_bound_either_way_is_a_finding_and_blocks_promotion() -> None:
    evidence = _trial(bound_ms=2.0)
    _add_runs(evidence, engine_less_s=-0.0025)  # the engine's times longer than the client's
    analysis = analyze_trial(evidence)
    assert all(gap.beyond_bound for run in analysis.runs for gap in run.timing)
    gaps = [f for f in analysis.findings if f.kind == "timing-gap"]
    assert [(f.values.phase, f.values.metric, f.values.runs) for f in gaps] == [
        (phase, metric, 2) for phase in ("before", "candidate", "restored") for metric in ("ttft_s", "e2e_s")
    ]
    assert gaps[0].values.largest_gap_ms == pytest.approx(-2.5) and gaps[0].values.bound_ms == 2.0
    assert "−2.5 ms" in finding_sentence(gaps[0], "candidate") and "cannot be promoted" in finding_sentence(gaps[0], "x")
    assert analysis.outcome == "no-promotion"  # the candidate wins on medians: the gap alone blocks it
    assert analysis.verdicts["win"] == 1 and any("6 run(s)" in reason and "2 ms" in reason for reason in analysis.blocked_by)
    assert "the engine's TTFT exceeds the client's by 2.5 ms" in timing_sentences(analysis)[0]
    # Within the bound, the same trial promotes.
    relaxed = _trial(bound_ms=2.6)
    _add_runs(relaxed, engine_less_s=-0.0025)
    assert analyze_trial(relaxed).outcome == "promote"


@pytest.mark.parametrize(
    ("override", "status"),
    [
        ({"process_start_times_s": [1000.0, 2000.0]}, "engine-restarted"),
        ({"counters": {**BASE, **_histograms((1.0, 2.0), (2.0, 2.0)), "ttft_seconds_count": [100.0, 3.0]}}, "counter-reset"),
        ({"counters": {**BASE, **_histograms((1.0, 2.0), (2.0, 2.0)), "ttft_seconds_sum": [50.0, 10.0]}}, "counter-reset"),
        (
            {"counters": {**BASE, **_histograms((1.0, 2.0), (2.0, 2.0)), "ttft_seconds_sum": [-1.7e308, 1.7e308]}},
            "counter-reset",
        ),  # finite readings whose delta overflows: no histogram gives them
        ({"counters": {**BASE, **_histograms((1.0, 2.0), (2.0, 2.0)), "ttft_seconds_sum": [-3.0, -2.0]}}, "counter-reset"),
        ({"counters": {**BASE, **_histograms((1.0, 3.0), (2.0, 3.0))}}, "count-mismatch"),
        ({"counters": {k: v for k, v in {**BASE, **_histograms((1.0, 2.0), (2.0, 2.0))}.items() if k != "ttft_seconds_sum"}}, "no-histogram"),
        ({"counters": None, "reconciled": None}, "no-counters"),
    ],
)
def test_what_cannot_be_compared_says_why(override: dict, status: str) -> None:
    evidence = _trial(bound_ms=0.001)
    _add_runs(evidence, **{"before/r1-8192-c4": override})
    analysis = analyze_trial(evidence)
    ttft = analysis.runs[0].timing[0]
    assert ttft.status == status and ttft.gap_ms is None and not ttft.beyond_bound
    summary = analysis.arms[0].timing[0]
    assert summary.runs_compared == 1 and summary.runs_not_comparable + summary.runs_not_reconcilable == 1
    assert (summary.runs_not_reconcilable == 1) == (status in ("no-counters", "no-histogram"))
    assert "did not reconcile" not in timing_run_rows(analysis)[0][2]
    assert timing_run_rows(analysis)[0][2].startswith("not reconcilable" if summary.runs_not_reconcilable else "not comparable")


def test_a_run_whose_requests_all_failed_compares_nothing() -> None:
    evidence = _trial()
    _add_runs(evidence, **{"before/r1-8192-c4": {"counters": {**BASE, **_histograms((0.0, 0.0), (0.0, 0.0))}}})
    for r in evidence.arms[0].requests:
        if r.run == "r1-8192-c4":
            r.ok, r.error, r.e2e_s, r.ttft_s, r.ttft_content_s = False, "timeout", None, None, None
    gap = analyze_trial(evidence).runs[0].timing[1]
    assert (gap.status, gap.client_count, gap.engine_count, gap.client_mean_s) == ("no-requests", 0, 0.0, None)


def test_journals_without_histograms_are_not_reconcilable_and_the_figures_stand() -> None:
    old, new = _trial(), _trial()
    for arm in old.arms:
        arm.runs = []
    _add_runs(old)
    for arm in old.arms:
        for run in arm.runs:
            run.counters = dict(BASE)
    _add_runs(new)
    before, after = analyze_trial(old), analyze_trial(new)
    assert all(g.status == "no-histogram" for r in before.runs for g in r.timing)
    assert timing_sentences(before) == [
        "Engine timing: not reconcilable: no timing histograms are in the journals (the counters recorded around the runs hold none)."
    ]
    assert before.groups == after.groups and before.outcome == after.outcome


def test_runs_without_counters_are_not_reconcilable_never_did_not_reconcile() -> None:
    evidence = _trial()
    _add_runs(evidence)
    for run in evidence.arms[1].runs:
        run.reconciled, run.counters = None, None
    evidence.arms[2].runs[0].reconciled = False
    analysis = analyze_trial(evidence)
    assert (analysis.runs_reconciled, analysis.runs_unreconcilable, analysis.runs_total) == (3, 2, 6)
    kinds = {f.kind: f for f in analysis.findings}
    assert kinds["unreconciled"].values.count == 1 and kinds["not-reconcilable"].values.count == 2
    said = finding_sentence(kinds["not-reconcilable"], "candidate")
    assert said.startswith("2 run(s) are not reconcilable") and "did not reconcile" not in said
    assert reconciled_text(analysis) == "3/6 (2 not reconcilable: no counters recorded around them)"
    assert kinds["not-reconcilable"].values.without_counters == 2 and "no counters recorded around them" in said
    assert reconciled_text(analysis.arms[0]) == "2/2"


def test_a_declared_bound_is_checked_on_every_run_or_the_trial_does_not_promote() -> None:
    evidence = _trial(bound_ms=5)
    _add_runs(evidence, **{"candidate/r2-8192-c4": {"counters": {**BASE, **_histograms((0.1, 3.0), (1.0, 2.0))}}})
    analysis = analyze_trial(evidence)
    assert [g.status for g in analysis.runs[3].timing] == ["count-mismatch", "compared"]
    assert analysis.outcome == "no-promotion"
    assert any("timing bound could not be checked in 1 run(s)" in b and b.endswith(": 1 in candidate") for b in analysis.blocked_by), (
        analysis.blocked_by
    )
    unchecked = [f for f in analysis.findings if f.kind == "timing-unchecked"]
    assert [(f.values.phase, f.values.metric, f.values.runs, f.values.not_comparable) for f in unchecked] == [("candidate", "ttft_s", 1, 1)]
    said = finding_sentence(unchecked[0], "candidate")
    assert "could not be checked on the TTFT of 1 of 2 run(s) (1 not comparable)" in said
    cell = timing_run_rows(analysis)[3][2]
    assert cell == "not comparable: the engine observed 3 requests, the client has 2 ok request(s) carrying the TTFT"
    # Without a bound nothing is checked, and nothing blocks.
    free = _trial()
    _add_runs(free, **{"candidate/r2-8192-c4": {"counters": {**BASE, **_histograms((0.1, 3.0), (1.0, 2.0))}}})
    assert analyze_trial(free).outcome == "promote"


def test_a_declared_bound_with_no_counters_at_all_says_so_and_blocks() -> None:
    evidence = _trial(bound_ms=5)
    _add_runs(evidence)
    for arm in evidence.arms:
        for run in arm.runs:
            run.reconciled, run.counters = None, None
    analysis = analyze_trial(evidence)
    assert analysis.outcome == "no-promotion" and analysis.runs_without_counters == 6
    assert timing_sentences(analysis) == [
        "Engine timing: not reconcilable: no run has counters recorded around it, so no timing histograms either.",
        "Declared bound: 5 ms either way per run; it could not be checked on any run, so the candidate cannot be promoted.",
    ]
    assert {f.kind for f in analysis.findings} >= {"timing-unchecked", "not-reconcilable"}


def test_gaps_beyond_a_float_are_not_comparable_and_every_mean_is_finite() -> None:
    from evidence_kit.analyze.timing import _weighted_mean

    assert _weighted_mean([(1e308, 1)] * 4) == 1e308
    assert _weighted_mean([(1.7e308, 3), (-1.7e308, 1)]) == pytest.approx(0.85e308)
    assert _weighted_mean([(float.fromhex("0x1.fffffffffffffp+1023"), 3)]) == float.fromhex("0x1.fffffffffffffp+1023")
    evidence = _trial(bound_ms=5)
    _add_runs(evidence)
    for r in evidence.arms[0].requests:
        if r.run == "r1-8192-c4":
            r.e2e_s = 1.5e306
    analysis = analyze_trial(evidence)
    gap = analysis.runs[0].timing[1]
    assert (gap.status, gap.gap_ms, gap.beyond_bound, gap.client_mean_s) == ("not-finite", None, False, 1.5e306)
    assert analysis.outcome == "no-promotion"
    assert "Infinity" not in analysis.model_dump_json()
    assert timing_run_rows(analysis)[0][3].startswith("not comparable: the client's and the engine's means are too far")


def test_beside_the_bound_a_gap_never_rounds_onto_or_across_it() -> None:
    from evidence_kit.present import milliseconds

    assert milliseconds(50.04, 50) == "+50.04 ms" and milliseconds(-50.04, 50) == "\u221250.04 ms"
    assert milliseconds(49.96, 50) == "+49.96 ms" and milliseconds(50.0, 50) == "+50.0 ms"
    assert milliseconds(50.0000000000001, 50) == "+50.0000000000001 ms"
    assert milliseconds(3.14159, 50) == "+3.1 ms" and milliseconds(50.04) == "+50.0 ms"
