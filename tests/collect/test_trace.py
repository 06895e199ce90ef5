"""Trace replay: a Mooncake-layout trace read line by line (each fault one located line, exit 2, non-UTF-8
included), its arrivals replayed open loop at their offsets, time-scaled, the same in every arm, and the trace
itself kept out of the bundle (its sha256 in the private header, pseudonymised by redaction)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.collect import collect_trial, load_plan
from evidence_kit.collect.trace import read_trace
from evidence_kit.errors import BadInput
from evidence_kit.read import load_trial
from evidence_kit.redact import redact_bundle

from .conftest import write_plan

LINES = [
    {"timestamp": 1000 + 150 * i + (37 if i % 3 == 0 else 0), "input_length": 200 + 40 * i, "output_length": 8 + 2 * i, "hash_ids": [i, i + 1]}
    for i in range(6)
]


def _trace(folder: Path, lines: list[dict] | None = None, raw: bytes | None = None) -> Path:
    path = folder / "trace.jsonl"
    path.write_bytes(raw if raw is not None else "".join(json.dumps(x) + "\n" for x in lines or LINES).encode())
    return path


def _plan(folder: Path, extra: str = 'trace = "trace.jsonl"\ntrace_time_scale = 2.0\n', **workload: object) -> Path:
    plan = write_plan(folder / "plan.toml", workload={"repetitions": 2, "warmup_requests": 1, **workload})
    drop = ("concurrency =", "input_nominal =", "requests_per_run =")
    text = "\n".join(line for line in plan.read_text().splitlines() if not line.startswith(drop))
    plan.write_text(text.replace("[workload]\n", "[workload]\n" + extra) + "\n")
    return plan


def test_the_trace_sets_the_inputs_the_rate_and_the_schedule(tmp_path: Path) -> None:
    _trace(tmp_path)
    plan = load_plan(_plan(tmp_path))
    wl = plan.trial().workload
    assert plan.trace is not None and plan.trace.sha256 == hashlib.sha256((tmp_path / "trace.jsonl").read_bytes()).hexdigest()
    # Arrivals at 1037, 1150, 1300, 1487, 1600, 1750 ms, replayed at half speed.
    assert plan.trace.offsets(2.0) == pytest.approx([0.0, 0.226, 0.526, 0.9, 1.126, 1.426])
    assert wl.arrival == "trace" and wl.requests_per_run == 6 and wl.input_nominal == [300]
    assert wl.rate == [float(f"{5 / 1.426:.4g}")] and wl.concurrency is None
    assert plan.trace.requests[2].hash_ids == (2, 3)  # read and checked, not used


@pytest.mark.parametrize(
    "case",
    [
        "not json",
        "not an object",
        "missing",
        "unknown field",
        "negative timestamp",
        "decreasing",
        "zero input",
        "fractional output",
        "boolean input",
        "bad hash_ids",
        "non-utf8",
    ],
)
def test_an_inconsistent_trace_line_is_refused_with_the_trace_file_and_its_line(tmp_path: Path, case: str) -> None:
    lines = [json.dumps(x).encode() for x in LINES]
    bad = {
        "not json": b'{"timestamp": 5,',
        "not an object": b"[1, 2, 3]",
        "missing": b'{"timestamp": 2000, "input_length": 10}',
        "unknown field": b'{"timestamp": 2000, "input_length": 10, "output_length": 5, "prompt": "hi"}',
        "negative timestamp": b'{"timestamp": -1, "input_length": 10, "output_length": 5}',
        "decreasing": b'{"timestamp": 1200, "input_length": 10, "output_length": 5}',
        "zero input": b'{"timestamp": 2000, "input_length": 0, "output_length": 5}',
        "fractional output": b'{"timestamp": 2000, "input_length": 10, "output_length": 5.5}',
        "boolean input": b'{"timestamp": 2000, "input_length": true, "output_length": 5}',
        "bad hash_ids": b'{"timestamp": 2000, "input_length": 10, "output_length": 5, "hash_ids": [1, -2]}',
        "non-utf8": b'{"timestamp": 2000, "input_length": 10, "output_length": 5, "hash_ids": [1]} \xff\xfe',
    }[case]
    lines.insert(4, bad)  # line 5: after the line at 1487 ms, so "decreasing" goes back in time
    trace = _trace(tmp_path, raw=b"\n".join(lines) + b"\n")
    with pytest.raises(BadInput) as caught:
        read_trace(trace)
    assert caught.value.path == str(trace) and caught.value.line == 5, (caught.value.line, caught.value.message)


def test_a_trace_of_one_request_or_no_span_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="at least 2 requests"):
        read_trace(_trace(tmp_path, LINES[:1]))
    with pytest.raises(BadInput, match="spans no time"):
        read_trace(_trace(tmp_path, [{**x, "timestamp": 5} for x in LINES]))


def test_the_cli_names_the_trace_file_and_line_of_a_non_utf8_line_exit_2(tmp_path: Path, run_cli) -> None:
    lines = [json.dumps(x).encode() for x in LINES]
    lines[2] = lines[2][:-1] + b', "x": "\xc3\x28"}'
    trace = _trace(tmp_path, raw=b"\n".join(lines))
    result = run_cli("collect", _plan(tmp_path), "--out", tmp_path / "raw", "-q")
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {trace}:3: not UTF-8"), result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err and not (tmp_path / "raw").exists()


@pytest.mark.parametrize(
    "extra, said",
    [
        ('trace = "trace.jsonl"\nrate = [2.0]\n', "with trace sets no rate"),
        ('trace = "trace.jsonl"\ninput_nominal = [256]\n', "with trace sets no input_nominal"),
        ("trace_time_scale = 2.0\ninput_nominal = [256]\nconcurrency = [1]\n", "trace_time_scale scales a trace"),
        ('input_nominal = [256]\nrate = [2.0]\narrival = "trace"\n', "'poisson' or 'constant'"),
        ('trace = "trace.jsonl"\ntrace_time_scale = 0\n', "greater than 0"),
        ('trace = "trace.jsonl"\nprefix_tokens = 64\nprefixes = 2\n', "with trace sets no prefix_tokens"),
    ],
)
def test_a_plan_whose_trace_settings_contradict_is_refused_at_its_line(tmp_path: Path, extra: str, said: str) -> None:
    _trace(tmp_path)
    plan = _plan(tmp_path, extra)
    with pytest.raises(BadInput) as caught:
        load_plan(plan)
    assert said in caught.value.message and caught.value.path == str(plan) and caught.value.line is not None


@pytest.mark.slow
def test_a_replayed_trace_offers_its_arrivals_in_every_arm_and_stays_out_of_the_bundle(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    digest = hashlib.sha256(trace.read_bytes()).hexdigest()
    out = tmp_path / "raw" / "t-small"
    result = collect_trial(_plan(tmp_path, max_tokens=64), out)
    assert result.ok, result.problems
    evidence = load_trial(out)
    want = [round(x, 6) for x in read_trace(trace).offsets(2.0)]
    for arm in evidence.arms:
        assert arm.header.private.trace_sha256 == digest
        assert [run.rate for run in arm.runs] == [evidence.trial.workload.rate[0]] * 2
        for run in arm.runs:
            requests = [r for r in arm.timed if r.run == run.run]
            assert [r.scheduled_s for r in requests] == want
            # Each request capped at its line's output length (the simulator stops there) and sized near its
            # input length (the calibrated prompts are approximate).
            assert [r.completion_tokens for r in requests] == [x["output_length"] for x in LINES]
            assert all(0.7 * x["input_length"] <= (r.prompt_tokens or 0) <= 1.3 * x["input_length"] for r, x in zip(requests, LINES))
            assert all(abs(r.send_wait_s - (r.t_send_s - run.t_start_s - r.scheduled_s)) <= 3e-6 for r in requests)
    trial = analyze(evidence).trials[0]
    assert trial.groups[0].label.endswith(f"/R{evidence.trial.workload.rate[0]!r}") and trial.runs_total == 6
    (tmp_path / "raw" / "decision.toml").write_text('id = "2026-12-26-trace"\ndate = "2026-12-26"\ntitle = "Trace"\ntrials = ["t-small"]\n')
    redacted = redact_bundle(tmp_path / "raw", tmp_path / "public", key=b"trace-test-key-0123456789abcdefgh").out
    published = b"".join(p.read_bytes() for p in redacted.rglob("*") if p.is_file())
    assert digest.encode() not in published and b"hash_ids" not in published and b"trace.jsonl" not in published
