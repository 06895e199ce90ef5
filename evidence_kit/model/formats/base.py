"""The base of every format record: closed (no field it does not declare), strict, frozen."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["FormatRecord"]


class FormatRecord(BaseModel):
    """A record a format reader builds from one raw file.

    Unlike the contract's records it allows no extra field: whatever a reader found that its
    record does not declare is not published. Every field has a default (a reader that finds
    nothing still returns a record) and declares its publication class.
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)
