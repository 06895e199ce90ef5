"""JSON Schemas of every contract record, generated from the pydantic models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter

from .analyze.report import Analysis  # the analysis document is part of the contract too
from .model import JOURNAL_RECORD, Decision, Manifest, Receipt, Trial

__all__ = ["schemas"]


def _models() -> dict[str, TypeAdapter[Any] | type[BaseModel]]:
    return {
        "trial": Trial,
        "journal-record": JOURNAL_RECORD,
        "decision": Decision,
        "manifest": Manifest,
        "receipt": Receipt,
        "analysis": Analysis,
    }


def schemas() -> dict[str, dict[str, Any]]:
    """Every schema by file stem, e.g. ``{"trial": {...}}``."""
    out: dict[str, dict[str, Any]] = {}
    for name, model in _models().items():
        if isinstance(model, TypeAdapter):
            schema = model.json_schema(by_alias=True)
        else:
            schema = model.model_json_schema(by_alias=True)
        schema["$id"] = f"https://evidence-kit.invalid/schema/{name}.v1.json"
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[name] = schema
    return out

