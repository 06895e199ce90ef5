"""The client's health: derived from the run records' raw values, judged against trial.json's bounds,
and a saturated run blocks a promotion that would otherwise happen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.analyze.client_health import achieved_concurrency, run_client
from evidence_kit.errors import BadInput
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.model import ClientBounds, Request, Run
from evidence_kit.present import client_health_sentence, finding_sentence
from evidence_kit.read import load_trial
from evidence_kit.text_report import render_text
from tests.analyze.health_bundle import process

WINNING = {**{g: (2.0, 2.0, 2.0) for g in GROUPS}, (8192, 4): (2.0, 1.7, 2.0)}  # one group wins


def _edit(bundle: Path, journal: str, edit) -> None:
    path = bundle / "journals" / journal
    records = [edit(json.loads(line)) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _healthy(record: dict) -> dict:
    if record["type"] == "run":
        record["client"] = {"wall_s": 1.0, "processes": [process()]}
    return record


def _bundle(tmp_path: Path, *, client: dict | None = None) -> Path:
    bundle = write_trial_bundle(tmp_path / "t", "t", {**REFERENCE_TRIALS["cache-layout"], "title": "client", "e2e": WINNING})
    for journal in ("01-original-before.jsonl", "02-layout-candidate-candidate.jsonl", "03-original-restored.jsonl"):
        _edit(bundle, journal, _healthy)
    if client is not None:
        trial = json.loads((bundle / "trial.json").read_text())
        trial["client"] = client
        (bundle / "trial.json").write_text(json.dumps(trial))
    return bundle


def test_a_healthy_trial_promotes_and_says_its_client_was_within_bounds(tmp_path: Path) -> None:
    trial = analyze(load_trial(_bundle(tmp_path))).trials[0]
    assert trial.outcome == "promote" and trial.blocked_by == []
    assert (trial.client_runs_recorded, trial.client_runs_saturated) == (36, 0)
    assert trial.client_bounds == ClientBounds()  # trial.json without `client` reads as the defaults
    assert not [f for f in trial.findings if f.kind == "client-saturated"]
    assert client_health_sentence(trial).startswith("within the declared bounds in 36/36 runs")


def test_one_saturated_run_blocks_promotion_and_is_named_with_its_bound(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)

    def lagging(record: dict) -> dict:
        if record["type"] == "run" and record["run"] == "r2-8192-c4":
            record["client"]["processes"][0].update(loop_lag_max_s=0.5)
        return record

    _edit(bundle, "02-layout-candidate-candidate.jsonl", lagging)
    trial = analyze(load_trial(bundle)).trials[0]
    assert trial.wins == 1 and trial.outcome == "no-promotion"
    assert trial.blocked_by == ["the client was saturated (a declared client bound exceeded) in 1 run(s): candidate r2-8192-c4"]
    saturated = [f for f in trial.findings if f.kind == "client-saturated"]
    assert len(saturated) == 1 and trial.client_runs_saturated == 1
    values = saturated[0].values
    assert (values.phase, values.block, values.run) == ("candidate", None, "r2-8192-c4")
    [over] = values.exceeded
    assert (over.bound, over.value, over.limit) == ("loop-lag", 0.5, 0.2)
    assert over.over_pct == pytest.approx(150.0)
    sentence = finding_sentence(saturated[0], trial.candidate_label)
    assert "run r2-8192-c4 of the candidate arm" in sentence
    assert "event-loop lag reached 0.500 s, 150.00% over the 0.2 s bound" in sentence
    text = render_text(analyze(load_trial(bundle)))
    assert "Cannot promote: the client was saturated" in text and sentence in text


def test_the_declared_bounds_are_the_ones_applied(tmp_path: Path) -> None:
    # The same journals, judged by bounds trial.json declares: a tiny CPU bound trips every run.
    trial = analyze(load_trial(_bundle(tmp_path, client={"max_cpu_share": 0.05}))).trials[0]
    assert trial.client_bounds.max_cpu_share == 0.05 and trial.client_runs_saturated == 36
    first = next(f for f in trial.findings if f.kind == "client-saturated")
    assert [(e.bound, e.value, e.limit) for e in first.values.exceeded] == [("loop-cpu", 0.1, 0.05)]


def test_a_misspelt_bound_in_trial_json_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="max_loop_lag"):
        load_trial(_bundle(tmp_path, client={"max_loop_lag": 0.5}))


def _run(client: dict | None) -> Run:
    return Run(type="run", run="r1-1-c2", repetition=1, input_nominal=1, concurrency=2, requests=2, ok=2, client=client)


def _request(index: int, t_send: float | None, e2e: float | None, wait: float | None, ok: bool = True) -> Request:
    return Request(
        type="request",
        run="r1-1-c2",
        repetition=1,
        input_nominal=1,
        concurrency=2,
        index=index,
        warmup=False,
        ok=ok,
        error=None if ok else "http 503",
        e2e_s=e2e if ok else None,
        t_send_s=t_send,
        send_wait_s=wait,
    )


def test_processes_are_combined_as_their_bottleneck() -> None:
    # Two processes (the collector and a worker, as a later collector writes): CPU summed, the loop judged by
    # the busiest, the lag by the worst.
    run = _run(
        {
            "wall_s": 2.0,
            "processes": [
                process(cpu_s=0.5, loop_cpu_s=0.4, loop_lag_p50_s=0.001, loop_lag_max_s=0.05, loop_lag_samples=180),
                process(cpu_s=1.9, loop_cpu_s=1.9, loop_lag_p50_s=0.004, loop_lag_max_s=0.25, loop_lag_samples=150),
            ],
        }
    )
    requests = [_request(0, 0.0, 1.0, 0.002), _request(1, 0.5, 1.0, 1.2)]
    health = run_client(run, requests, ClientBounds())
    assert health is not None
    assert (health.processes, health.cpu_s, health.loop_lag_samples) == (2, 2.4, 330)
    assert (health.loop_cpu_share, health.loop_lag_p50_s, health.loop_lag_max_s) == (0.95, 0.004, 0.25)
    assert (health.send_wait_p50_s, health.send_wait_max_s) == (0.002, 1.2)
    assert health.achieved_concurrency == pytest.approx(2.0 / 1.5)
    assert [e.bound for e in health.exceeded] == ["loop-lag", "send-wait", "loop-cpu"] and health.saturated


def test_a_value_on_its_bound_is_within_it() -> None:
    run = _run({"wall_s": 1.0, "processes": [process(cpu_s=0.9, loop_cpu_s=0.9, loop_lag_max_s=0.2, loop_lag_p50_s=0.025)]})
    health = run_client(run, [_request(0, 0.0, 1.0, 1.0)], ClientBounds())
    assert health is not None and health.exceeded == [] and not health.saturated


def test_what_cannot_be_derived_is_not_judged() -> None:
    # No lag sample (a run shorter than the interval), a wall time of 0 (clock rounding), every request failed
    # before it had an end: nothing to judge on lag or CPU, no achieved concurrency, and the send waits still count.
    run = _run({"wall_s": 0.0, "processes": [process(loop_lag_samples=0, loop_lag_p50_s=None, loop_lag_max_s=None, loop_cpu_s=0.001)]})
    failed = [_request(0, 0.0, None, 0.0, ok=False), _request(1, 0.0, None, 1.7, ok=False)]
    health = run_client(run, failed, ClientBounds())
    assert health is not None
    assert (health.loop_lag_max_s, health.loop_cpu_share, health.achieved_concurrency) == (None, None, None)
    assert [e.bound for e in health.exceeded] == ["send-wait"]
    assert achieved_concurrency([]) is None
    assert achieved_concurrency([_request(0, 1.0, 0.0, 0.0)]) is None  # one instantaneous request: span 0
    assert run_client(_run(None), failed, ClientBounds()) is None  # not recorded


def test_a_lag_summary_that_cannot_be_true_is_refused() -> None:
    with pytest.raises(ValueError, match="greater than loop_lag_max_s"):
        _run({"wall_s": 1.0, "processes": [process(loop_lag_p50_s=0.2, loop_lag_max_s=0.1)]})
    with pytest.raises(ValueError, match="exactly when loop_lag_samples"):
        _run({"wall_s": 1.0, "processes": [process(loop_lag_samples=0)]})
    with pytest.raises(ValueError, match="at least 1"):
        _run({"wall_s": 1.0, "processes": []})


def test_what_no_collector_writes_is_refused_at_its_run_record(tmp_path: Path) -> None:
    # More requests on the wire than the run's concurrency, and a wall time shorter than the requests' span.
    for name, edit in (
        ("concurrency", lambda r: r.update(t_send_s=0.0) if r["type"] == "request" else None),
        ("wall", lambda r: r["client"].update(wall_s=0.0005) if r["type"] == "run" else None),
    ):
        bundle = _bundle(tmp_path / name)

        def apply(record: dict, edit=edit) -> dict:
            if record.get("run") == "r1-8192-c4":
                if "t_send_s" not in record and record["type"] == "request":
                    record["t_send_s"] = 0.0
                edit(record)
            return record

        _edit(bundle, "02-layout-candidate-candidate.jsonl", apply)
        with pytest.raises(BadInput) as err:
            load_trial(bundle)
        assert err.value.line is not None and "02-" in str(err.value.path)


def test_a_share_that_overflows_is_null_and_blocks_as_unjudged() -> None:
    run = _run(
        {"wall_s": 1e-320, "processes": [process(cpu_s=0.0005, loop_cpu_s=0.0005, loop_lag_samples=0, loop_lag_p50_s=None, loop_lag_max_s=None)]}
    )
    health = run_client(run, [], ClientBounds(max_loop_lag_s=5e-324))
    assert health is not None and health.loop_cpu_share is None and health.unjudged == ["loop-cpu"]
    assert not health.saturated
