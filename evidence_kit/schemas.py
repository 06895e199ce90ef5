"""JSON Schemas of every contract record, generated from the pydantic models.

``evidence-kit schema`` writes them, the site publishes them under ``schemas/``, and
``docs/schemas/`` holds the copy ``docs/contract.md`` documents (``tests/test_contract_docs.py``
keeps it equal to what the models generate).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, TypeAdapter

from .analyze.report import Analysis  # the analysis document is part of the contract too
from .model import Decision, JournalRecord, Manifest, Receipt, TelemetrySample, Trial

__all__ = ["MODELS", "SCHEMA_NAMES", "schema_id", "schemas"]

# File stem -> the model of that record (a journal record is the union of its types).
MODELS: dict[str, Any] = {
    "trial": Trial,
    "journal-record": JournalRecord,
    "telemetry-sample": TelemetrySample,
    "decision": Decision,
    "manifest": Manifest,
    "receipt": Receipt,
    "analysis": Analysis,
}
SCHEMA_NAMES: tuple[str, ...] = tuple(MODELS)


def schema_id(name: str) -> str:
    """The ``$id`` of schema ``name``: an identifier, never fetched (``.invalid`` resolves nowhere)."""
    return f"https://evidence-kit.invalid/schema/{name}.v1.json"


def schemas() -> dict[str, dict[str, Any]]:
    """Every schema by file stem, e.g. ``{"trial": {...}}``: a fresh copy each call, generated once per process."""
    loaded: dict[str, dict[str, Any]] = json.loads(_schemas_json())
    return loaded


@lru_cache(maxsize=1)
def _schemas_json() -> str:
    out: dict[str, dict[str, Any]] = {}
    for name, model in MODELS.items():
        if isinstance(model, type) and issubclass(model, BaseModel):
            schema = model.model_json_schema(by_alias=True)
        else:
            schema = TypeAdapter(model).json_schema(by_alias=True)
        schema["$id"] = schema_id(name)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[name] = schema
    return json.dumps(out)
