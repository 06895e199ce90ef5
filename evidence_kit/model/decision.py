"""``decision.toml``: one published page grouping trials, with the operator's prose."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from ._base import Record, Slug
from .publication import PROSE, PUBLIC
from .texts import ISO_DATE

__all__ = ["Decision", "MAX_TAGS", "TAG_PATTERN"]

IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
# A tag as a host's tags plugin lists it: words of ASCII letters, digits, '.', '_' and '-', one space
# between words; nothing a page, a URL or YAML could read as markup.
TAG_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*(?: [A-Za-z0-9._-]+)*$"
Tag = Annotated[str, Field(pattern=TAG_PATTERN, max_length=40)]
MAX_TAGS = 20


class Decision(Record):
    """A decision: its trials, and prose that never overrides a computed figure."""

    id: Annotated[Slug, PROSE]
    date: Annotated[IsoDate, PUBLIC, ISO_DATE]
    title: Annotated[str, PROSE] = Field(min_length=1, max_length=300)
    trials: Annotated[list[str], PROSE] = Field(min_length=1)
    narrative: Annotated[dict[str, str], PROSE] = Field(default_factory=dict)
    setup: Annotated[dict[str, str], PROSE] = Field(default_factory=dict)
    # The decision page's front matter, beside its title: what a host's tags plugin lists it under, and
    # the summary a host's theme gives search engines and link previews.
    tags: Annotated[list[Tag], PROSE] = Field(default_factory=list, max_length=MAX_TAGS)
    description: Annotated[str | None, PROSE] = Field(default=None, min_length=1, max_length=300)

    @field_validator("tags")
    @classmethod
    def _distinct(cls, tags: list[str]) -> list[str]:
        repeated = sorted({t for t in tags if tags.count(t) > 1})
        if repeated:
            raise ValueError(f"{repeated[0]!r} is listed twice")
        return tags
