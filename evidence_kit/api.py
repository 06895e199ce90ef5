"""The Python API for analysts: ``evidence_kit.open(path)`` and the evidence as pandas DataFrames.

    import evidence_kit
    ev = evidence_kit.open("evidence/2026-12-01-simulated-cache-layout-and-dflash")
    requests = ev.requests()          # one row per request record, warmup flagged
    timed = requests[~requests.warmup & requests.ok]
    timed.groupby(["trial", "group", "phase"]).e2e_s.median()
    ev.analysis()["trials"][0]["outcome"]

The tables are :func:`evidence_kit.export.evidence_tables`' (the rows ``evidence-kit export``
writes), with pandas' nullable dtypes set from the contract's field types: ``Int64`` for whole
numbers, ``Float64`` for numbers, ``boolean`` for truth values, ``string`` for texts (``<NA>``
where the journal line holds nothing); a list or object field (``itl_us``, ``counters``, a
sample's ``engine``) is an ``object`` column of Python lists and dicts. ``analysis()`` is the
document ``evidence-kit analyze --json`` prints, computed by the same code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .analyze import Analysis, analysis_json, analyze
from .export import Table, evidence_tables
from .model.evidence import DecisionEvidence, TrialEvidence
from .read import load_any
from .read.completed import require_completed

__all__ = ["Evidence", "open", "DTYPES", "FLATTENED"]

# A column's kind (evidence_kit.export.KINDS) -> its pandas dtype.
DTYPES = {"int": "Int64", "float": "Float64", "bool": "boolean", "str": "string", "json": "object", "timestamp": "datetime64[us, UTC]"}
# The telemetry sample's objects, flattened into one column per reading (``engine.running``, ``gpus.0.util``).
FLATTENED = ("engine", "gpus", "process", "cgroup")


@dataclass
class Evidence:
    """A trial bundle or decision folder, read and checked against the contract."""

    path: Path
    evidence: DecisionEvidence | TrialEvidence
    _tables: dict[str, Table] | None = field(default=None, repr=False)
    _analysis: Analysis | None = field(default=None, repr=False)

    @property
    def trials(self) -> list[str]:
        """The trial ids, in the decision's order."""
        trials = self.evidence.trials if isinstance(self.evidence, DecisionEvidence) else [self.evidence]
        return [t.trial.trial_id for t in trials]

    def tables(self) -> dict[str, Table]:
        """``requests``, ``runs`` and ``telemetry`` as rows (what ``evidence-kit export`` writes)."""
        if self._tables is None:
            self._tables = {t.name: t for t in evidence_tables(self.evidence)}
        return self._tables

    def requests(self) -> Any:
        """One row per request record (timed and warmup: see the ``warmup`` column), as a DataFrame."""
        return _frame(self.tables()["requests"])

    def runs(self) -> Any:
        """One row per run record, as a DataFrame."""
        return _frame(self.tables()["runs"])

    def telemetry(self) -> Any:
        """One row per telemetry sample, as a DataFrame (no rows where no series was recorded); its objects
        (``engine``, ``gpus``, ``process``, ``cgroup``) flattened into one column per reading, named by its
        path (``engine.running``, ``gpus.0.util``)."""
        return _flattened(_frame(self.tables()["telemetry"]))

    def analyzed(self) -> Analysis:
        """The analysis as its typed model (computed once; ``evidence-kit analyze`` prints it)."""
        if self._analysis is None:
            self._analysis = analyze(self.evidence)
        return self._analysis

    def analysis(self) -> dict[str, Any]:
        """The analysis document, exactly as ``evidence-kit analyze --json`` prints it."""
        result: dict[str, Any] = json.loads(analysis_json(self.analyzed()))
        return result


def open(path: str | Path) -> Evidence:  # noqa: A001 - evidence_kit.open is the API's name
    """Read the trial bundle (``trial.json``) or decision folder (``decision.toml``) at ``path``.

    Raises :class:`evidence_kit.errors.EvidenceError` (with the file and line) on evidence that
    breaks the contract, and on a trial in which no arm completed a timed request (nothing was
    measured), with the one line the commands print before they exit 2.
    """
    return Evidence(Path(path), require_completed(load_any(path)))


def _frame(table: Table) -> Any:
    import pandas as pd  # the command line does not pay for pandas

    frame = pd.DataFrame.from_records(list(table.rows), columns=list(table.columns))
    dtypes: dict[str, Any] = {name: DTYPES[kind] for name, kind in table.columns.items() if kind != "timestamp"}
    for name, values in table.categories.items():
        dtypes[name] = pd.CategoricalDtype(list(values), ordered=True)
    frame = frame.astype(dtypes)
    for name in (n for n, kind in table.columns.items() if kind == "timestamp"):
        frame[name] = pd.to_datetime(frame[name], utc=True, format="ISO8601").astype(DTYPES["timestamp"])
    return frame


def _flat(value: Any, path: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flat(inner, f"{path}.{key}", out)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _flat(inner, f"{path}.{index}", out)
    else:
        out[path] = value


def _flattened(frame: Any) -> Any:
    """``frame`` with each object column of :data:`FLATTENED` replaced by a column per reading, in the
    order first met; a reading a sample lacks is missing there."""
    import pandas as pd

    for name in FLATTENED:
        rows: list[dict[str, Any]] = []
        for value in frame[name]:
            flat: dict[str, Any] = {}
            if isinstance(value, (dict, list)):
                _flat(value, name, flat)
            rows.append(flat)
        columns = list(dict.fromkeys(key for row in rows for key in row))
        parts = pd.DataFrame.from_records(rows, columns=columns, index=frame.index).convert_dtypes()
        at = frame.columns.get_loc(name)
        frame = pd.concat([frame.iloc[:, :at], parts, frame.iloc[:, at + 1 :]], axis=1)
    return frame
