"""``decision.toml``: one published page grouping trials, with the operator's prose."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._base import Record, Slug

__all__ = ["Decision"]

IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]


class Decision(Record):
    """A decision: its trials, and prose that never overrides a computed figure."""

    id: Slug
    date: IsoDate
    title: str = Field(min_length=1, max_length=300)
    trials: list[str] = Field(min_length=1)
    narrative: dict[str, str] = Field(default_factory=dict)
    setup: dict[str, str] = Field(default_factory=dict)
