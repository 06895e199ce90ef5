"""Requests, runs and telemetry samples of a trial bundle or decision folder as tables.

Every row carries where it comes from (``trial``, ``seq``, ``arm``, ``phase``, ``block``, and
for requests and runs the ``group`` as the analysis labels it), then every field of its journal
record in the contract's order (``docs/contract.md``), so nothing of the record is lost; a field
the journal line does not hold is ``None``, never a default the reader filled in. Two fields take
another column name, so that a name means one thing in every table and none shadows a dataframe's
own attribute: a request's ``index`` is ``request_index``, a run's ``ok`` (a count; a request's
``ok`` is a truth value) ``requests_ok``. Derived, and said so in ``docs/api.md``: each request's
``sent_at`` and each run's ``started_at``, wall-clock UTC (the arm's ``started_at`` plus the
record's seconds since it), and a closed-loop run's ``t_start_s``, its first request's send. A list or
object field (``itl_us``, ``counters``, ``client``, a telemetry sample's ``engine``) stays a
list or an object in a row, and is one cell of canonical JSON (sorted keys, no spaces) in the
CSV. Rows come in the order of the decision's trials, each trial's arms and each journal's
lines: the same evidence gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import json
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
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
# What a column holds: a whole number, a number, a truth value, a text, a list or object, or a
# wall-clock instant (ISO 8601 UTC text, to the microsecond).
KINDS = ("int", "float", "bool", "str", "json", "timestamp")
# A journal field whose column takes another name in a table (one meaning per name; none named ``index``).
RENAMED = {"requests": {"index": "request_index"}, "runs": {"ok": "requests_ok"}}
# The derived wall-clock column of a table, after its record's fields.
WALL_CLOCK = {"requests": "sent_at", "runs": "started_at"}
PHASE_ORDER = ("before", "candidate", "restored")


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


def _columns(table: str, fields: dict[str, str]) -> dict[str, str]:
    """A table's record columns: the fields under their table names, then its wall-clock column."""
    renamed = RENAMED.get(table, {})
    columns = {renamed.get(name, name): kind for name, kind in fields.items()}
    return {**columns, WALL_CLOCK[table]: "timestamp"} if table in WALL_CLOCK else columns


@dataclass(frozen=True)
class Table:
    """One table: its columns with their kinds (:data:`KINDS`), its rows (each a mapping of every column),
    and the categorical columns' values in their order (``arm``, ``phase``; ``group`` by input, then load)."""

    name: str
    columns: dict[str, str]
    rows: tuple[dict[str, Any], ...]
    categories: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _cell(value: Any) -> Any:
    """A value as one CSV cell: lists and objects as canonical JSON, everything else as it is."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return value


def _record(record: BaseModel, fields: dict[str, str], table: str) -> dict[str, Any]:
    """Every field of the record, under its table's column name; what the journal line did not hold (inside
    nested objects too) stays absent, never a default the reader filled in."""
    dumped = record.model_dump(mode="json", by_alias=True, exclude_unset=True)
    renamed = RENAMED.get(table, {})
    return {renamed.get(name, name): dumped.get(name) for name in fields}


def _origin(arm: ArmEvidence) -> dt.datetime | None:
    """When the arm began (its header's ``started_at``), the origin of its records' seconds; None when
    not recorded (an imported file that records no date)."""
    try:
        return dt.datetime.fromisoformat(arm.header.started_at.replace("Z", "+00:00")).astimezone(dt.UTC)
    except ValueError:
        return None


def _wall(origin: dt.datetime | None, seconds: float | None) -> str | None:
    if origin is None or seconds is None:
        return None
    return (origin + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _first_sends(arm: ArmEvidence) -> dict[str, float]:
    """Each run's earliest timed send (seconds since the arm began): a closed-loop run's start."""
    first: dict[str, float] = {}
    for r in arm.requests:
        if not r.warmup and r.t_send_s is not None:
            first[r.run] = min(first.get(r.run, r.t_send_s), r.t_send_s)
    return first


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
        origin, first = _origin(arm), _first_sends(arm)
        for r in arm.requests:
            group = label.get((r.input_nominal, r.load))
            requests.append({**where, "group": group, **_record(r, request_fields, "requests"), "sent_at": _wall(origin, r.t_send_s)})
        for run in arm.runs:
            group = label.get((run.input_nominal, run.load))
            start = run.t_start_s if run.t_start_s is not None else first.get(run.run)
            row = {**where, "group": group, **_record(run, run_fields, "runs"), "t_start_s": start}
            runs.append({**row, "started_at": _wall(origin, start)})
        for sample in arm.telemetry or ():
            samples.append({**where, **_record(sample, sample_fields, "telemetry")})
    categories = _categories(evidence, labels)
    return [
        Table("requests", {**ARM_COLUMNS, **GROUP_COLUMN, **_columns("requests", request_fields)}, tuple(requests), categories),
        Table("runs", {**ARM_COLUMNS, **GROUP_COLUMN, **_columns("runs", run_fields)}, tuple(runs), categories),
        Table(
            "telemetry",
            {**ARM_COLUMNS, **_columns("telemetry", sample_fields)},
            tuple(samples),
            {k: v for k, v in categories.items() if k != "group"},
        ),
    ]


def _categories(evidence: DecisionEvidence | TrialEvidence, labels: dict[str, dict[tuple[int, int | float], str]]) -> dict[str, tuple[str, ...]]:
    """``arm`` in the order the arms first ran, ``phase`` before, candidate, restored, and ``group`` by
    input, then concurrency (or rate): the order a reader sorts them in, never the text's."""
    arms = tuple(dict.fromkeys(where["arm"] for _, _, where in _arms(evidence)))
    cells = sorted(
        {(key, label) for trial in labels.values() for key, label in trial.items()}, key=lambda item: (item[0][0], float(item[0][1]), item[1])
    )
    return {"arm": arms, "phase": PHASE_ORDER, "group": tuple(dict.fromkeys(label for _, label in cells))}


def table_csv(table: Table) -> bytes:
    """The table as spreadsheet-safe CSV (:func:`evidence_kit.spreadsheet.csv_bytes`)."""
    return csv_bytes(({k: _cell(v) for k, v in row.items()} for row in table.rows), list(table.columns))
