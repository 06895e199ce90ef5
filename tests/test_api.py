"""The Python API: `evidence_kit.open(path)` gives every journal field of the evidence as typed DataFrame
columns, and the analysis `analyze --json` prints; docs/api.md's worked example runs as written."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import evidence_kit
from evidence_kit.api import DTYPES, FLATTENED
from evidence_kit.errors import EvidenceError
from evidence_kit.export.tables import RENAMED

from .conftest import REPO
from .export.test_export import DEMO, _journal_lines


@pytest.mark.parametrize("table, kind", [("requests", "request"), ("runs", "run"), ("telemetry", "sample")])
def test_every_journal_field_round_trips(table: str, kind: str) -> None:
    ev = evidence_kit.open(DEMO)
    frame = getattr(ev, table)()
    records = _journal_lines(DEMO, kind)
    assert len(frame) == len(records) > 0
    columns = ev.tables()[table].columns
    renamed = RENAMED.get(table, {})
    for row, record in zip(frame.to_dict("records"), records):
        for name, value in record.items():
            if name == "type":
                continue
            if table == "telemetry" and name in FLATTENED:
                flat = {k.split(".", 1)[1]: v for k, v in row.items() if k.startswith(f"{name}.") and v is not pd.NA}
                assert flat == _flat(value), (name, flat, value)
                continue
            cell = row[renamed.get(name, name)]
            if name == "t_start_s" and value is None:
                continue  # a closed-loop run's start is derived (test_a_runs_start_is_its_first_send)
            if value is None:
                assert cell is None or cell is pd.NA, (table, name, cell)
            else:
                assert cell == value, (table, name, cell, value)
    plain = {
        name: kind for name, kind in columns.items() if name not in ("arm", "phase", "group") and not (table == "telemetry" and name in FLATTENED)
    }
    assert {name: str(frame[name].dtype) for name in plain} == {name: DTYPES[k] for name, k in plain.items()}


def _flat(value: object, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        return {k: v for key, inner in value.items() for k, v in _flat(inner, f"{prefix}{key}.").items()}
    if isinstance(value, list):
        return {k: v for i, inner in enumerate(value) for k, v in _flat(inner, f"{prefix}{i}.").items()}
    return {prefix[:-1]: value} if value is not None else {}


def test_arm_phase_and_group_are_ordered_categories() -> None:
    ev = evidence_kit.open(DEMO)
    requests = ev.requests()
    for name in ("arm", "phase", "group"):
        assert isinstance(requests[name].dtype, pd.CategoricalDtype) and requests[name].cat.ordered, name
    assert list(requests.phase.cat.categories) == ["before", "candidate", "restored"]
    # Groups by input, then concurrency: ~4K/C1 before ~4K/C4, and ~1K before ~4K (text would also put
    # ~10K before ~4K); each label's input is the analysis's, so its order is the workload's.
    groups = list(requests.group.cat.categories)
    keys = {label: (r.input_nominal, r.concurrency) for r in requests.itertuples() for label in [r.group]}
    assert [keys[g] for g in groups] == sorted(keys[g] for g in groups)
    medians = requests[~requests.warmup].groupby("group", observed=True).e2e_s.median()
    assert list(medians.index) == [g for g in groups if g in set(medians.index)]


def test_no_column_shadows_a_dataframe_and_each_name_means_one_thing() -> None:
    ev = evidence_kit.open(DEMO)
    frames = {name: getattr(ev, name)() for name in ("requests", "runs", "telemetry")}
    for name, frame in frames.items():
        assert not [c for c in frame.columns if c in dir(pd.DataFrame)], name
    shared = set(frames["requests"].columns) & set(frames["runs"].columns)
    for column in shared:
        assert str(frames["requests"][column].dtype) == str(frames["runs"][column].dtype), column
    assert frames["requests"].ok.dtype == "boolean" and frames["runs"].requests_ok.dtype == "Int64"


def test_requests_and_runs_carry_a_utc_wall_clock_and_every_run_a_start() -> None:
    ev = evidence_kit.open(DEMO)
    requests, runs = ev.requests(), ev.runs()
    assert str(requests.sent_at.dtype.tz) == "UTC" and str(runs.started_at.dtype.tz) == "UTC"
    timed = requests[~requests.warmup]
    assert timed.sent_at.notna().all() and runs.t_start_s.notna().all() and runs.started_at.notna().all()
    # A run's start is its first timed send, and the A/B/A arms follow one another on the wall clock.
    first = timed.groupby(["trial", "seq", "run"], observed=True).t_send_s.min()
    for run in runs.itertuples():
        assert run.t_start_s == first[(run.trial, run.seq, run.run)]
    spans = timed.groupby(["trial", "seq"], observed=True).sent_at.agg(["min", "max"])
    for trial in ev.trials:
        ordered = spans.loc[trial].sort_index()
        assert (ordered["min"].iloc[1:].to_numpy() >= ordered["max"].iloc[:-1].to_numpy()).all(), trial


def test_the_analysis_is_what_analyze_json_prints(run_cli) -> None:
    result = run_cli("analyze", DEMO, "--json")
    assert result.code == 0
    assert evidence_kit.open(DEMO).analysis() == json.loads(result.out)


def test_a_trial_bundle_without_telemetry_gives_an_empty_typed_frame(reference_decision: Path) -> None:
    trial = next(p for p in sorted(reference_decision.iterdir()) if (p / "trial.json").is_file())
    ev = evidence_kit.open(trial)
    assert ev.trials == [json.loads((trial / "trial.json").read_text())["trial_id"]]
    telemetry = ev.telemetry()
    assert len(telemetry) == 0 and list(telemetry.columns[:5]) == ["trial", "seq", "arm", "phase", "block"]
    requests = ev.requests()
    assert requests["block"].isna().all() and set(requests["phase"]) == {"before", "candidate", "restored"}


def test_bad_evidence_raises_the_located_error(tmp_path: Path) -> None:
    (tmp_path / "trial.json").write_text('{"schema": "evidence-kit/trial/v1"\n')
    with pytest.raises(EvidenceError, match="trial.json"):
        evidence_kit.open(tmp_path)


def test_importing_the_package_loads_neither_the_api_nor_pandas() -> None:
    code = "import sys, evidence_kit.cli; print('pandas' in sys.modules, 'evidence_kit.api' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO))
    ).stdout
    assert out.split() == ["False", "False"]


def test_the_worked_example_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (REPO / "docs" / "api.md").read_text()
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    [printed] = re.findall(r"prints\n\n```text\n(.*?)```", text, re.S)
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/api.md", "exec"), {})
    assert out.getvalue() == printed
