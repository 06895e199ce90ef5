"""`evidence-kit export`: every journal record of the evidence as a table row, nothing lost or altered,
spreadsheet-safe, the same bytes every time."""

from __future__ import annotations

import csv
import io
import json
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd

from evidence_kit.examples.synthetic import synthetic_trial
from evidence_kit.export import evidence_tables, table_csv
from evidence_kit.export.tables import RENAMED, WALL_CLOCK
from evidence_kit.model import Request

from ..conftest import REPO

DEMO = REPO / "evidence" / "2026-12-01-simulated-cache-layout-and-dflash"
WHERE = ("trial", "seq", "arm", "phase", "block", "group")


def _rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _journal_lines(folder: Path, kind: str) -> list[dict[str, Any]]:
    """Every record of ``kind`` in every journal (telemetry: every sample), read from the files' own bytes,
    in the trials' order, arm by arm (trial.json's order), line by line."""
    trials = tomllib.loads((folder / "decision.toml").read_text())["trials"]
    out = []
    for trial in trials:
        spec = json.loads((folder / trial / "trial.json").read_text())
        for arm in spec["arms"]:
            journal = folder / trial / arm["journal"]
            path = journal.parent.parent / "telemetry" / journal.name if kind == "sample" else journal
            if path.is_file():
                records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
                out += [r for r in records if r.get("type") == kind]
    return out


def _same(cell: str, value: Any) -> bool:
    """A cell holds the journal's value: empty for absent, JSON for lists and objects, the number itself."""
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == str(value)
    if isinstance(value, (list, dict)):
        return json.loads(cell) == value
    if isinstance(value, (int, float)):
        return float(cell) == value
    return cell == value if not value.startswith(("=", "+", "-", "@", "\t", "\r")) else cell == "'" + value


def test_every_field_of_every_record_is_a_cell(tmp_path: Path, run_cli) -> None:
    result = run_cli("export", DEMO, "--out", tmp_path / "tables")
    assert result.code == 0, result.err
    assert result.out.split() == [str(tmp_path / "tables" / f"{n}.csv") for n in ("requests", "runs", "telemetry")]
    for table, kind in (("requests", "request"), ("runs", "run"), ("telemetry", "sample")):
        rows = _rows(tmp_path / "tables" / f"{table}.csv")
        records = _journal_lines(DEMO, kind)
        assert len(rows) == len(records) > 0, table
        renamed = RENAMED.get(table, {})
        derived = {WALL_CLOCK.get(table), "t_start_s"}  # docs/api.md: derived, said so
        for row, record in zip(rows, records):
            lost = {renamed.get(n, n) for n in record} - {"type"} - set(row)
            assert not lost, f"{table}: fields with no column: {lost}"
            for name, value in record.items():
                if name != "type" and not (name == "t_start_s" and value is None):
                    assert _same(row[renamed.get(name, name)], value), (table, name, row[renamed.get(name, name)], value)
            named = {renamed.get(n, n) for n in record}
            invented = {c: v for c, v in row.items() if c not in named and c not in WHERE and c not in derived and v != ""}
            assert not invented, f"{table}: cells the journal line does not hold: {invented}"
            assert all(row[c] for c in ("trial", "seq", "arm", "phase")), row
            if table != "telemetry":
                assert row["group"].startswith("~") and row["group"].endswith(f"/C{record['concurrency']}")


def test_the_tables_open_in_a_dataframe_and_flag_warmup(tmp_path: Path, run_cli) -> None:
    assert run_cli("export", DEMO, "--out", tmp_path).code == 0
    requests = pd.read_csv(tmp_path / "requests.csv")
    assert list(requests.columns[:6]) == list(WHERE)
    assert requests["warmup"].dtype == bool and requests["warmup"].any() and not requests["warmup"].all()
    timed = requests[~requests["warmup"]]
    assert set(timed["phase"]) == {"before", "candidate", "restored"}
    assert requests["e2e_s"].dtype == float and pd.read_csv(tmp_path / "runs.csv")["requests_ok"].dtype == int
    assert "index" not in requests.columns and requests["sent_at"].str.endswith("Z").all()


def test_the_same_evidence_writes_the_same_bytes(tmp_path: Path, run_cli) -> None:
    for out in ("a", "b"):
        assert run_cli("export", DEMO, "--out", tmp_path / out).code == 0
    for name in ("requests.csv", "runs.csv", "telemetry.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_formula_like_text_opens_as_text() -> None:
    evidence = synthetic_trial("formula", {p: [[1.0, 1.1], [1.2, 1.3]] for p in ("before", "candidate", "restored")})
    arm = evidence.arms[1]
    failed = arm.requests[0].model_copy(update={"ok": False, "e2e_s": None, "error": '=HYPERLINK("x")'})
    arm.requests[0] = Request.model_validate(failed.model_dump(by_alias=True))
    [requests, *_] = evidence_tables(evidence)
    text = table_csv(requests).decode()
    assert "'=HYPERLINK" in text and ",=HYPERLINK" not in text and ',"=HYPERLINK' not in text


def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, run_cli) -> None:
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / "trial.json").write_bytes(b'{"schema": "evidence-kit/trial/v1", \xff}')
    out = tmp_path / "tables"
    result = run_cli("export", tmp_path / "bundle", "--out", out)
    assert result.code == 2 and "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1
    assert "trial.json" in result.err and not out.exists()
    result = run_cli("export", tmp_path / "nowhere", "--out", out)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1 and not out.exists()


def test_parquet_holds_the_apis_typed_frames_and_the_same_bytes_every_time(tmp_path: Path, run_cli) -> None:
    import evidence_kit

    for out in ("a", "b"):
        result = run_cli("export", DEMO, "--format", "parquet", "--out", tmp_path / out)
        assert result.code == 0 and result.out.split() == [str(tmp_path / out / f"{n}.parquet") for n in ("requests", "runs", "telemetry")]
    for name in ("requests", "runs", "telemetry"):
        assert (tmp_path / "a" / f"{name}.parquet").read_bytes() == (tmp_path / "b" / f"{name}.parquet").read_bytes()
    ev = evidence_kit.open(DEMO)
    requests = pd.read_parquet(tmp_path / "a" / "requests.parquet")
    want = ev.requests()
    assert list(requests.columns) == list(want.columns) and len(requests) == len(want)
    assert requests.group.cat.ordered and list(requests.group.cat.categories) == list(want.group.cat.categories)
    assert str(requests.sent_at.dtype) == str(want.sent_at.dtype) and requests.e2e_s.equals(want.e2e_s)
    # A list field is JSON text there (a Parquet column holds one type): the same list read back.
    first = next(i for i, v in enumerate(want.itl_us) if isinstance(v, list))
    assert json.loads(requests.itl_us[first]) == want.itl_us[first]
    telemetry = pd.read_parquet(tmp_path / "a" / "telemetry.parquet")
    assert list(telemetry.columns) == list(ev.telemetry().columns) and "engine" not in telemetry.columns
