"""Requests, runs and telemetry samples of a trial bundle or decision folder as tables.

Every row carries where it comes from (``trial``, ``seq``, ``arm``, ``phase``, ``block``, and
for requests and runs the ``group`` as the analysis labels it), then every field of its journal
record in the contract's order (``docs/contract.md``), so nothing of the record is lost: a
list or object field (``itl_us``, ``counters``, ``client``, a telemetry sample's ``engine``)
is one cell holding its canonical JSON (sorted keys, no spaces). Rows come in the order of the
decision's trials, each trial's arms and each journal's lines: the same evidence gives the same
bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..analyze.findings import phase_blocks
from ..analyze.groups import group_labels
from ..model.evidence import ArmEvidence, DecisionEvidence, TrialEvidence
from ..model.journal import Request, Run
from ..model.telemetry import TelemetrySample
from ..spreadsheet import csv_bytes

__all__ = ["TABLES", "Table", "evidence_tables", "table_csv"]

ARM_COLUMNS = ("trial", "seq", "arm", "phase", "block")
TABLES = ("requests", "runs", "telemetry")


def _fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The record's fields in the contract's order, less the ``type`` tag every row of a table shares."""
    return tuple((info.alias or name) for name, info in model.model_fields.items() if name != "type")


@dataclass(frozen=True)
class Table:
    """One table: its columns and its rows (each a mapping of every column)."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]


def _cell(value: Any) -> Any:
    """A record's value as one cell: lists and objects as canonical JSON, everything else as it is."""
    if isinstance(value, (list, dict, tuple)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return value


def _record(record: BaseModel, fields: tuple[str, ...]) -> dict[str, Any]:
    """Every field of the record; what the journal line did not hold (inside nested objects too) stays
    absent, never a default the reader filled in."""
    dumped = record.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return {name: _cell(dumped.get(name)) for name in fields}


def _arms(evidence: DecisionEvidence | TrialEvidence) -> Iterator[tuple[TrialEvidence, ArmEvidence, dict[str, Any]]]:
    trials = evidence.trials if isinstance(evidence, DecisionEvidence) else [evidence]
    for trial in trials:
        blocks = phase_blocks([(a.ref.seq, a.ref.phase) for a in trial.arms])
        for arm in trial.arms:
            where = {"trial": trial.trial.trial_id, "seq": arm.ref.seq, "arm": arm.ref.arm, "phase": arm.ref.phase,
                     "block": blocks[arm.ref.seq]}
            yield trial, arm, where


def evidence_tables(evidence: DecisionEvidence | TrialEvidence) -> list[Table]:
    """The ``requests``, ``runs`` and ``telemetry`` tables of ``evidence``, in that order."""
    request_fields, run_fields, sample_fields = _fields(Request), _fields(Run), _fields(TelemetrySample)
    requests: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    samples: list[dict[str, Any]] = []
    labels: dict[str, dict[tuple[int, int], str]] = {}
    for trial, arm, where in _arms(evidence):
        label = labels.setdefault(trial.trial.trial_id, group_labels(trial))
        for r in arm.requests:
            group = label.get((r.input_nominal, r.concurrency))
            requests.append({**where, "group": group, **_record(r, request_fields)})
        for run in arm.runs:
            group = label.get((run.input_nominal, run.concurrency))
            runs.append({**where, "group": group, **_record(run, run_fields)})
        for sample in arm.telemetry or ():
            samples.append({**where, **_record(sample, sample_fields)})
    return [
        Table("requests", (*ARM_COLUMNS, "group", *request_fields), tuple(requests)),
        Table("runs", (*ARM_COLUMNS, "group", *run_fields), tuple(runs)),
        Table("telemetry", (*ARM_COLUMNS, *sample_fields), tuple(samples)),
    ]


def table_csv(table: Table) -> bytes:
    """The table as spreadsheet-safe CSV (:func:`evidence_kit.spreadsheet.csv_bytes`)."""
    return csv_bytes(table.rows, table.columns)
