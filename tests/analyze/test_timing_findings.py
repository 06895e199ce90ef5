"""Timing reconciliation (c0e1325, a89570c) on edge cases. Each test states the expected behaviour."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from evidence_kit.analyze import analyze, analyze_trial
from evidence_kit.present import finding_sentence, reconciled_text, timing_run_rows
from evidence_kit.read import load_trial
from tests.analyze.timing_bundle import G, add_histograms, journals, write_bundle

FAST = [{G: [[1.0, 1.1, 1.2, 1.3]] * 5}, {G: [[0.8, 0.85, 0.9, 0.95]] * 5}, {G: [[1.0, 1.1, 1.2, 1.3]] * 5}]
RULE = {"metric": "e2e_s", "statistic": "median", "min_improvement": 0.10, "max_timing_gap_ms": 5}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence_kit", *args], capture_output=True, text=True)


def test_a_declared_bound_that_no_run_could_check_does_not_let_the_trial_promote(tmp_path: Path) -> None:
    # Every run's histograms count one request more than the client sent (another client on the engine,
    # or a request that failed mid-stream for TTFT), and the engine saw each request 50 ms shorter:
    # a gap 10x the declared 5 ms bound (500 ms, as first written, made the TTFT sums go backwards).
    # Every run is 'count-mismatch', none is checked, and the trial promotes under a page that says
    # "Declared bound: 5 ms ...; a run beyond it blocks promotion".
    # Guardrails fail closed when they cannot be checked (f0e7f22); the declared bound fails open.
    bundle = write_bundle(tmp_path, "shared-engine", "ABA", FAST, rule=RULE)

    def one_more(seq: int, rec: dict, requests: list) -> None:
        for name in ("ttft", "e2e"):
            rec["counters"][f"{name}_seconds_count"][1] += 1

    add_histograms(bundle, engine_less_s=0.05, edit=one_more)
    trial = analyze_trial(load_trial(bundle))
    assert all(g.status == "count-mismatch" for r in trial.runs for g in r.timing)
    assert trial.outcome != "promote", "a declared timing bound no run could check was treated as held"


def test_a_declared_bound_without_any_histogram_does_not_let_the_trial_promote(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "no-histograms", "ABA", FAST, rule=RULE)  # run records without counters
    trial = analyze_trial(load_trial(bundle))
    assert trial.rule.max_timing_gap_ms == 5
    assert trial.outcome != "promote", "the declared bound was never checked, and the trial promotes"


def test_huge_client_times_are_a_refusal_or_a_figure_never_a_traceback(tmp_path: Path) -> None:
    # Valid journal values (finite, >= 0). Before c0e1325 (6a79702) this trial analysed and promoted;
    # now timing.py's math.fsum raises OverflowError before it even looks for counters.
    values = [dict(v) for v in FAST]
    values[0] = {G: [[{"e2e_s": 1e308, "ttft_s": 0.1}] * 4] + FAST[0][G][1:]}
    bundle = write_bundle(tmp_path, "huge", "ABA", values, rule={**RULE, "metric": "ttft_s"})
    result = _cli("analyze", str(bundle))
    assert "Traceback" not in result.stderr, result.stderr[-400:]


def test_an_infinite_gap_never_reaches_analysis_json(tmp_path: Path) -> None:
    # a89570c made a delta that overflows 'counter-reset' because "analysis.json cannot hold" an infinite
    # gap; the client side still makes one: (1.5e306 - 2.5e-301) x 1000 = inf, written as Infinity.
    values = [dict(v) for v in FAST]
    values[0] = {G: [[{"e2e_s": 1.5e306, "ttft_s": 0.1}] * 4] + FAST[0][G][1:]}
    bundle = write_bundle(tmp_path, "inf", "ABA", values, rule=RULE)

    def tiny_engine_sum(seq: int, rec: dict, requests: list) -> None:
        if seq == 1 and rec["run"] == "r1-8192-c1":
            rec["counters"]["e2e_seconds_sum"] = [0.0, 1e-300]

    add_histograms(bundle, edit=tiny_engine_sum)
    result = _cli("analyze", str(bundle), "--json")
    assert result.returncode in (0, 2) and "Traceback" not in result.stderr
    assert "Infinity" not in result.stdout, "analysis.json holds a non-JSON Infinity (gap_ms, mean_gap_ms, largest_gap_ms)"


def test_runs_with_histograms_but_no_request_counters_are_not_worded_as_having_no_counters(tmp_path: Path) -> None:
    # reconcile() returns verdict None when the engine exposes none of the request/token counters, but the
    # run record still carries every counter it read, the timing histograms included: analyze compares
    # them (here: every run beyond the bound, promotion blocked) while the finding says "the engine exposed
    # no counters around them ... so nothing could be compared", and the arm table "6 not reconcilable:
    # the engine exposed no counters".
    bundle = write_bundle(tmp_path, "histograms-only", "ABA", FAST, rule={**RULE, "max_timing_gap_ms": 1})

    def histograms_only(seq: int, rec: dict, requests: list) -> None:
        rec["reconciled"] = None
        for name in ("requests", "prompt_tokens", "generation_tokens"):
            del rec["counters"][name]

    add_histograms(bundle, engine_less_s=0.0025, edit=histograms_only)
    trial = analyze_trial(load_trial(bundle))
    assert trial.outcome == "no-promotion" and any(f.kind == "timing-gap" for f in trial.findings)
    said = [finding_sentence(f, "cand") for f in trial.findings if f.kind == "not-reconcilable"]
    assert not any("nothing could be compared" in s for s in said), said
    assert "exposed no counters" not in reconciled_text(trial), reconciled_text(trial)


def test_the_largest_gap_is_a_function_of_the_measurements_not_of_the_run_order(tmp_path: Path) -> None:
    # Two runs of one arm with gaps +250 ms and -250 ms: largest_gap_ms (and the timing-gap finding's
    # "largest") is whichever run the journal lists first. Swapping the two runs' lines flips its sign.
    values = [{G: [[1.0] * 4] * 2}, {G: [[0.5] * 4] * 2}, {G: [[1.0] * 4] * 2}]
    bundle = write_bundle(tmp_path, "ties", "ABA", values, rule={**RULE, "max_timing_gap_ms": 100})

    def opposite(seq: int, rec: dict, requests: list) -> None:
        if seq == 1:
            sign = 1 if rec["run"] == "r1-8192-c1" else -1
            rec["counters"]["e2e_seconds_sum"] = [50.0, 50.0 + 4 * (1.0 - sign * 0.25)]

    add_histograms(bundle, edit=opposite)
    first = analyze(load_trial(bundle)).trials[0]
    path = journals(bundle)[0]
    lines = path.read_text().splitlines(True)
    kind = [json.loads(line)["type"] for line in lines]
    head = [x for x, k in zip(lines, kind) if k in ("header", "gate")]
    run = {rid: [x for x in lines if json.loads(x).get("run") == rid] for rid in ("r1-8192-c1", "r2-8192-c1")}
    path.write_text("".join(head + run["r2-8192-c1"] + run["r1-8192-c1"] + [lines[-1]]))
    second = analyze(load_trial(bundle)).trials[0]
    assert first.arms[0].timing[1].largest_gap_ms == second.arms[0].timing[1].largest_gap_ms, (
        first.arms[0].timing[1].largest_gap_ms,
        second.arms[0].timing[1].largest_gap_ms,
    )


def test_a_gap_beyond_the_bound_is_not_shown_as_the_bound_itself(tmp_path: Path) -> None:
    # Bound 50 ms; the engine saw each request 50.04 ms shorter: beyond the bound, blocked, and the run's
    # cell reads "+50.0 ms (beyond the bound)" under "declared 50 ms" (cf. tests/present/test_threshold_display.py).
    bundle = write_bundle(tmp_path, "edge", "ABA", FAST, rule={**RULE, "max_timing_gap_ms": 50})
    add_histograms(bundle, engine_less_s=0.05004)
    trial = analyze(load_trial(bundle)).trials[0]
    assert trial.outcome == "no-promotion"
    cell = timing_run_rows(trial)[0][3]
    assert cell.endswith("(beyond the bound)") and not cell.startswith("+50.0 ms"), cell
