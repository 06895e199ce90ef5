"""``decision.toml``: one published page grouping trials, with the operator's prose."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._base import Record, Slug
from .publication import PROSE, PUBLIC
from .texts import ISO_DATE

__all__ = ["Decision"]

IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]


class Decision(Record):
    """A decision: its trials, and prose that never overrides a computed figure."""

    id: Annotated[Slug, PROSE]
    date: Annotated[IsoDate, PUBLIC, ISO_DATE]
    title: Annotated[str, PROSE] = Field(min_length=1, max_length=300)
    trials: Annotated[list[str], PROSE] = Field(min_length=1)
    narrative: Annotated[dict[str, str], PROSE] = Field(default_factory=dict)
    setup: Annotated[dict[str, str], PROSE] = Field(default_factory=dict)
