"""The base of every format record (closed, strict, frozen) and the field types records share."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, NonNegativeFloat, NonNegativeInt

from ..publication import PUBLIC, IdentityKind, identity
from .shapes import IdentityText

__all__ = ["Count", "Flag", "FormatRecord", "Number", "Value", "Whole"]


class FormatRecord(BaseModel):
    """A record a format reader builds from one raw file.

    Unlike the contract's records it allows no extra field: whatever a reader found that its
    record does not declare is not published. Every field has a default (a reader that finds
    nothing still returns a record) and declares its publication class.
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


Count = Annotated[NonNegativeInt, PUBLIC]  # a count the reader keeps: lines, values withheld
Whole = Annotated[NonNegativeInt | None, PUBLIC]  # a whole number the file states, or None
Number = Annotated[NonNegativeFloat | None, PUBLIC]
Flag = Annotated[bool | None, PUBLIC]
Value = Annotated[IdentityText | None, identity(IdentityKind.VALUE)]  # an identity of no other kind: a bus id, a job
