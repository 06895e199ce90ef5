"""Turn pydantic and parser errors into one located line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

__all__ = ["describe_validation_error", "line_of_key"]


def _loc_text(loc: Sequence[Any]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def describe_validation_error(err: ValidationError, *, strip_tag: bool = False) -> tuple[str, tuple[Any, ...]]:
    """One sentence for the first problem (and how many more), and its location.

    ``strip_tag`` drops the leading union tag pydantic puts in front of the
    location of a discriminated-union member ("request.e2e_s" -> "e2e_s").
    """
    errors = err.errors(include_url=False)
    first = errors[0]
    if first["type"] == "missing":
        # A misspelt key is both a missing field and an unknown one beside it ([decision_rules] for
        # [decision_rule]): the unknown one is what the author wrote, so it is named, at its line.
        first = next((e for e in errors if e["type"] == "extra_forbidden" and tuple(e["loc"])[:-1] == tuple(first["loc"])[:-1]), first)
    loc = tuple(first["loc"])
    if strip_tag and loc and isinstance(loc[0], str):
        loc = loc[1:]
    # Model validators report at the model's own location; their message starts "Value error, ".
    msg = re.sub(r"^Value error, ", "", first["msg"])
    if first["type"] == "missing":
        text = f"missing required field '{_loc_text(loc)}'"
    elif first["type"] == "union_tag_invalid":
        ctx = first.get("ctx", {})
        text = f"unknown record type {ctx.get('tag')!r} (expected one of {ctx.get('expected_tags')})"
    elif first["type"] == "union_tag_not_found":
        text = "record has no 'type' field"
    elif first["type"] == "extra_forbidden":
        text = f"unknown field '{_loc_text(loc)}'"
    elif loc:
        text = f"field '{_loc_text(loc)}': {msg}"
        if first["type"].endswith("_type") and "input" in first:
            text += f" (got {type(first['input']).__name__})"
    else:
        text = msg
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return text, loc


def line_of_key(text: str, loc: Sequence[Any], *, toml: bool = False) -> int | None:
    """Best-effort line number of the field at ``loc`` in a JSON or TOML document.

    Walks the string keys of ``loc`` in order, each found after the previous one,
    so ``workload.repetitions`` finds the ``repetitions`` inside ``workload``.
    """
    pos = 0
    found: int | None = None
    for item in loc:
        if not isinstance(item, str):
            continue
        pattern = rf"(?m)^[ \t]*\"?{re.escape(item)}\"?[ \t]*=|^[ \t]*\[+[ \t]*{re.escape(item)}[ \t]*\]+" if toml else rf"\"{re.escape(item)}\"\s*:"
        match = re.compile(pattern).search(text, pos)
        if match is None:
            break
        found = match.start()
        pos = match.end()
    if found is None:
        return None
    return text.count("\n", 0, found) + 1
