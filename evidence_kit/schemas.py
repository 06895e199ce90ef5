"""JSON Schemas of every contract record, generated from the pydantic models.

``evidence-kit schema`` writes them, the site publishes them under ``schemas/``, and
``docs/schemas/`` holds the copy documented beside ``docs/contract.md`` (a test keeps it
equal to what the models generate).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter

from .analyze.report import Analysis  # the analysis document is part of the contract too
from .model import JOURNAL_RECORD, Decision, Manifest, Receipt, TelemetrySample, Trial

__all__ = ["SCHEMA_NAMES", "schema_id", "schemas"]

# File stem -> the model of that record.
_MODELS: dict[str, TypeAdapter[Any] | type[BaseModel]] = {
    "trial": Trial,
    "journal-record": JOURNAL_RECORD,
    "telemetry-sample": TelemetrySample,
    "decision": Decision,
    "manifest": Manifest,
    "receipt": Receipt,
    "analysis": Analysis,
}
SCHEMA_NAMES: tuple[str, ...] = tuple(_MODELS)


def schema_id(name: str) -> str:
    """The ``$id`` of schema ``name``: an identifier, never fetched (``.invalid`` resolves nowhere)."""
    return f"https://evidence-kit.invalid/schema/{name}.v1.json"


def schemas() -> dict[str, dict[str, Any]]:
    """Every schema by file stem, e.g. ``{"trial": {...}}``."""
    out: dict[str, dict[str, Any]] = {}
    for name, model in _MODELS.items():
        if isinstance(model, TypeAdapter):
            schema = model.json_schema(by_alias=True)
        else:
            schema = model.model_json_schema(by_alias=True)
        schema["$id"] = schema_id(name)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[name] = schema
    return out
