"""Build a format record from what a reader found, leaving out every value its type refuses.

A reader collects candidate values as plain data; the record's types (closed vocabularies,
strict shapes, bounded identities) decide what is kept. A value that does not validate is left
out and counted, never coerced, so a reader never fails on content and never publishes a value
of the wrong shape.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

__all__ = ["build"]

M = TypeVar("M", bound=BaseModel)


def _drop(data: Any, loc: tuple[int | str, ...]) -> bool:
    """Remove the value at ``loc`` (or the nearest container entry above it); whether anything went."""
    parents: list[tuple[Any, int | str]] = []
    node = data
    for step in loc:
        if isinstance(node, dict) and step in node:
            parents.append((node, step))
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            parents.append((node, step))
            node = node[step]
        else:
            break  # pydantic's loc names a union member or a validator past the data: drop what we reached
    if not parents:
        return False
    container, key = parents[-1]
    del container[key]
    return True


def build(model: type[M], data: dict[str, Any]) -> tuple[M, int]:
    """``model`` from ``data`` (mutated: refused values are removed) and how many values were refused."""
    dropped = 0
    for _ in range(10_000):
        try:
            return model.model_validate(data), dropped
        except ValidationError as error:
            # Last first, so removing a list's element does not shift the ones still to remove.
            errors = error.errors(include_url=False, include_input=False)
            gone = sum(_drop(data, tuple(e["loc"])) for e in reversed(errors))
            if not gone:
                break
            dropped += gone
    return model(), dropped + len(data)
