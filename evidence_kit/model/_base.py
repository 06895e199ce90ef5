"""Shared pydantic configuration for every record of the evidence contract."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

__all__ = ["Record", "Slug", "RelPath", "SLUG_PATTERN"]

SLUG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


class Record(BaseModel):
    """Base of every contract record.

    Extra fields are allowed everywhere (the contract says so); declared fields
    are strict, so a string never passes for a number and a number never for a
    boolean. NaN and infinity are refused: no statistic can be recomputed from them.
    """

    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False, frozen=False)


def _check_slug(value: str) -> str:
    if not re.match(SLUG_PATTERN, value):
        raise ValueError("must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return value


def _check_relpath(value: str) -> str:
    if not value or value.startswith("/") or "\\" in value or re.match(r"^[A-Za-z]:", value):
        raise ValueError("must be a relative path using '/'")
    parts = value.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError("must not contain empty, '.' or '..' components")
    return value


Slug = Annotated[str, AfterValidator(_check_slug)]
RelPath = Annotated[str, AfterValidator(_check_relpath)]
