"""The publication-class markers: declared per field, walked through nested records, in the schema."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from evidence_kit.model._base import Record
from evidence_kit.model.publication import PROSE, PUBLIC, Classed, IdentityKind, Publication, classed_fields, identity


class _Machine(Record):
    host: Annotated[str | None, identity(IdentityKind.HOST)] = None


class _Arm(Record):
    started_at: Annotated[str, PUBLIC] = Field(min_length=1)
    note: Annotated[str | None, PROSE] = None
    machines: list[_Machine] = Field(default_factory=list)
    unclassed: str = ""


def test_every_field_of_nested_records_is_walked_with_its_class() -> None:
    found = {f.where: (str(f.classed) if f.classed else None, f.records) for f in classed_fields(_Arm)}
    assert found == {
        "_Arm.started_at": ("public", ()),
        "_Arm.note": ("prose", ()),
        "_Arm.machines": (None, (_Machine,)),
        "_Arm.unclassed": (None, ()),
        "_Machine.host": ("identity:host", ()),
    }


def test_the_class_is_in_the_json_schema() -> None:
    schema = _Arm.model_json_schema()
    assert schema["properties"]["started_at"]["x-publication"] == "public"
    assert schema["$defs"]["_Machine"]["properties"]["host"]["x-publication"] == "identity:host"
    assert "x-publication" not in schema["properties"]["unclassed"]


def test_an_identity_names_its_kind_and_nothing_else_does() -> None:
    with pytest.raises(ValueError):
        Classed(Publication.IDENTITY)
    with pytest.raises(ValueError):
        Classed(Publication.PUBLIC, IdentityKind.HOST)
