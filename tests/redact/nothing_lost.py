"""A check written apart from the redactor: every public leaf of the raw evidence is in the bundle, unchanged.

It reads each contract file of the raw folder and of the bundle through the models, record by record,
and compares every field the contract classes public (numbers, timestamps, dates, token counts,
settings) and every code (the raw reason reduced to its word) field by field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evidence_kit.model import JOURNAL_RECORD, Decision, TelemetrySample, Trial
from evidence_kit.model.publication import Publication, publication_of
from evidence_kit.read import read_json_model, read_toml_model


def public_leaves(record: BaseModel, path: str = "") -> Iterator[tuple[str, Any]]:
    """``(field path, value)`` of every public and code field that was present, nested records included."""
    for name, info in type(record).model_fields.items():
        if name not in record.model_fields_set:
            continue
        value = getattr(record, name)
        where = f"{path}.{name}" if path else name
        classed = publication_of(info)
        if classed is None:
            items = value if isinstance(value, (list, tuple)) else list(value.values()) if isinstance(value, dict) else [value]
            for index, item in enumerate(items):
                if isinstance(item, BaseModel):
                    yield from public_leaves(item, f"{where}[{index}]")
        elif classed.publication is Publication.PUBLIC:
            yield where, value
        elif classed.publication is Publication.CODE and classed.vocabulary is not None:
            yield where, classed.vocabulary.code(value) if isinstance(value, str) else value


def _pairs(raw: Path, bundle: Path) -> Iterator[tuple[str, BaseModel, BaseModel]]:
    trial = read_json_model(raw / "trial.json", Trial)
    yield "trial.json", trial, read_json_model(bundle / "trial.json", Trial)
    for ref in trial.arms:
        for rel, parse in ((ref.journal, JOURNAL_RECORD.validate_json), (f"telemetry/{Path(ref.journal).name}", None)):
            if not (raw / rel).is_file():
                continue
            raw_lines = (raw / rel).read_bytes().splitlines()
            out_lines = (bundle / rel).read_bytes().splitlines()
            if parse is None:
                raw_lines = [line for line in raw_lines if json.loads(line).get("type") == "sample"]
            assert len(raw_lines) == len(out_lines), rel
            for number, (a, b) in enumerate(zip(raw_lines, out_lines), start=1):
                if parse is None:
                    yield f"{rel}:{number}", TelemetrySample.model_validate_json(a), TelemetrySample.model_validate_json(b)
                else:
                    yield f"{rel}:{number}", parse(a), parse(b)


def assert_nothing_lost(raw: Path, bundle: Path) -> int:
    """Compare every public leaf of a raw trial (or decision folder) with its bundle; the leaves compared."""
    compared = 0
    trials = [raw] if (raw / "trial.json").is_file() else [p.parent for p in sorted(raw.rglob("trial.json"))]
    if (raw / "decision.toml").is_file():
        a, b = read_toml_model(raw / "decision.toml", Decision), read_toml_model(bundle / "decision.toml", Decision)
        assert dict(public_leaves(a)) == dict(public_leaves(b)), "decision.toml"
    for folder in trials:
        out = bundle / folder.relative_to(raw)
        for where, a, b in _pairs(folder, out):
            before, after = dict(public_leaves(a)), dict(public_leaves(b))
            assert before == after, f"{folder.name}/{where}: {sorted(k for k in before if before[k] != after.get(k))}"
            compared += len(before)
    return compared
