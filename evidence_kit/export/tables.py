"""Requests, runs and telemetry samples of a trial bundle or decision folder as tables.

Every row carries where it comes from (``trial``, ``seq``, ``arm``, ``phase``, ``block``, and
for requests and runs the ``group`` as the analysis labels it), then every field of its journal
record in the contract's order (``docs/contract.md``), so nothing of the record is lost; a field
the journal line does not hold is ``None``, never a default the reader filled in. A list or
object field (``itl_us``, ``counters``, ``client``, a telemetry sample's ``engine``) stays a
list or an object in a row, and is one cell of canonical JSON (sorted keys, no spaces) in the
CSV. Rows come in the order of the decision's trials, each trial's arms and each journal's
lines: the same evidence gives the same bytes.
"""

from __future__ import annotations

import json
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from ..analyze.findings import phase_blocks
from ..analyze.groups import group_labels
from ..model.evidence import ArmEvidence, DecisionEvidence, TrialEvidence
from ..model.journal import Request, Run
from ..model.telemetry import TelemetrySample
from ..spreadsheet import csv_bytes

__all__ = ["TABLES", "KINDS", "Table", "evidence_tables", "table_csv"]

ARM_COLUMNS = {"trial": "str", "seq": "int", "arm": "str", "phase": "str", "block": "int"}
GROUP_COLUMN = {"group": "str"}
TABLES = ("requests", "runs", "telemetry")
# What a column holds: a whole number, a number, a truth value, a text, or a list or object.
KINDS = ("int", "float", "bool", "str", "json")


def _kind(annotation: Any) -> str:
    """The kind of a field from its type: ``int | None`` is int, ``int | float`` (a reading) float, a
    ``Literal`` of texts str, a list, tuple, mapping or record json."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        kinds = {_kind(arg) for arg in get_args(annotation) if arg is not type(None)}
        return "float" if kinds == {"int", "float"} else kinds.pop() if len(kinds) == 1 else "json"
    if get_origin(annotation) is Literal:
        return "str"
    for kind, types_ in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if annotation is types_:
            return kind
    return "json"


def _fields(model: type[BaseModel]) -> dict[str, str]:
    """The record's fields in the contract's order with their kinds, less the ``type`` tag every row of a
    table shares."""
    return {(info.alias or name): _kind(info.annotation) for name, info in model.model_fields.items() if name != "type"}


@dataclass(frozen=True)
class Table:
    """One table: its columns with their kinds (:data:`KINDS`), and its rows (each a mapping of every column)."""

    name: str
    columns: dict[str, str]
    rows: tuple[dict[str, Any], ...]


def _cell(value: Any) -> Any:
    """A value as one CSV cell: lists and objects as canonical JSON, everything else as it is."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return value


def _record(record: BaseModel, fields: dict[str, str]) -> dict[str, Any]:
    """Every field of the record; what the journal line did not hold (inside nested objects too) stays
    absent, never a default the reader filled in."""
    dumped = record.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return {name: dumped.get(name) for name in fields}


def _arms(evidence: DecisionEvidence | TrialEvidence) -> Iterator[tuple[TrialEvidence, ArmEvidence, dict[str, Any]]]:
    trials = evidence.trials if isinstance(evidence, DecisionEvidence) else [evidence]
    for trial in trials:
        blocks = phase_blocks([(a.ref.seq, a.ref.phase) for a in trial.arms])
        for arm in trial.arms:
            where = {"trial": trial.trial.trial_id, "seq": arm.ref.seq, "arm": arm.ref.arm, "phase": arm.ref.phase, "block": blocks[arm.ref.seq]}
            yield trial, arm, where


def evidence_tables(evidence: DecisionEvidence | TrialEvidence) -> list[Table]:
    """The ``requests``, ``runs`` and ``telemetry`` tables of ``evidence``, in that order."""
    request_fields, run_fields, sample_fields = _fields(Request), _fields(Run), _fields(TelemetrySample)
    requests: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    samples: list[dict[str, Any]] = []
    labels: dict[str, dict[tuple[int, int | float], str]] = {}
    for trial, arm, where in _arms(evidence):
        label = labels.setdefault(trial.trial.trial_id, group_labels(trial))
        for r in arm.requests:
            group = label.get((r.input_nominal, r.load))
            requests.append({**where, "group": group, **_record(r, request_fields)})
        for run in arm.runs:
            group = label.get((run.input_nominal, run.load))
            runs.append({**where, "group": group, **_record(run, run_fields)})
        for sample in arm.telemetry or ():
            samples.append({**where, **_record(sample, sample_fields)})
    return [
        Table("requests", {**ARM_COLUMNS, **GROUP_COLUMN, **request_fields}, tuple(requests)),
        Table("runs", {**ARM_COLUMNS, **GROUP_COLUMN, **run_fields}, tuple(runs)),
        Table("telemetry", {**ARM_COLUMNS, **sample_fields}, tuple(samples)),
    ]


def table_csv(table: Table) -> bytes:
    """The table as spreadsheet-safe CSV (:func:`evidence_kit.spreadsheet.csv_bytes`)."""
    return csv_bytes(({k: _cell(v) for k, v in row.items()} for row in table.rows), list(table.columns))
