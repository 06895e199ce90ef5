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
from evidence_kit.api import DTYPES
from evidence_kit.errors import EvidenceError

from .conftest import REPO
from .export.test_export import DEMO, _journal_lines


@pytest.mark.parametrize("table, kind", [("requests", "request"), ("runs", "run"), ("telemetry", "sample")])
def test_every_journal_field_round_trips(table: str, kind: str) -> None:
    ev = evidence_kit.open(DEMO)
    frame = getattr(ev, table)()
    records = _journal_lines(DEMO, kind)
    assert len(frame) == len(records) > 0
    columns = ev.tables()[table].columns
    assert {name: str(frame[name].dtype) for name in columns} == {name: DTYPES[k] for name, k in columns.items()}
    for row, record in zip(frame.to_dict("records"), records):
        assert set(record) - {"type"} <= set(frame.columns), set(record) - set(frame.columns)
        for name in columns:
            if name in ("trial", "seq", "arm", "phase", "block", "group"):
                continue
            value, cell = record.get(name), row[name]
            if value is None:
                assert cell is None or cell is pd.NA, (table, name, cell)
            else:
                assert cell == value, (table, name, cell, value)


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
