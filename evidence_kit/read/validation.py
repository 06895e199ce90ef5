"""Turn pydantic and parser errors into one located line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

__all__ = ["describe_validation_error", "validation_problems", "line_of_key"]


def _loc_text(loc: Sequence[Any]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts)


def _describe(error: Any, strip_tag: bool) -> tuple[str, tuple[Any, ...]]:
    """One sentence for one of pydantic's problems, and its location."""
    loc = tuple(error["loc"])
    if strip_tag and loc and isinstance(loc[0], str):
        loc = loc[1:]
    # Model validators report at the model's own location; their message starts "Value error, ".
    msg = re.sub(r"^Value error, ", "", error["msg"])
    kind = error["type"]
    if kind == "missing":
        return f"missing required field '{_loc_text(loc)}'", loc
    if kind == "union_tag_invalid":
        ctx = error.get("ctx", {})
        return f"unknown record type {ctx.get('tag')!r} (expected one of {ctx.get('expected_tags')})", loc
    if kind == "union_tag_not_found":
        return "record has no 'type' field", loc
    if kind == "extra_forbidden":
        return f"unknown field '{_loc_text(loc)}'", loc
    if not loc:
        return msg, loc
    text = f"field '{_loc_text(loc)}': {msg}"
    if kind.endswith("_type") and "input" in error:
        text += f" (got {type(error['input']).__name__})"
    return text, loc


def validation_problems(err: ValidationError, *, strip_tag: bool = False) -> list[tuple[str, tuple[Any, ...]]]:
    """One sentence and its location for every problem pydantic found, in its order.

    ``strip_tag`` drops the leading union tag pydantic puts in front of the
    location of a discriminated-union member ("request.e2e_s" -> "e2e_s").
    """
    return [_describe(error, strip_tag) for error in err.errors(include_url=False)]


def describe_validation_error(err: ValidationError, *, strip_tag: bool = False) -> tuple[str, tuple[Any, ...]]:
    """Every problem in one sentence, for a place that has one location (a journal line, an option),
    and the first problem's location.

    A misspelt key is both a missing field and an unknown one beside it ([decision_rules] for
    [decision_rule]): the unknown one, what the author wrote, is named first.
    """
    problems = validation_problems(err, strip_tag=strip_tag)
    unknown = [p for p in problems if p[0].startswith("unknown field")]
    ordered = unknown + [p for p in problems if p not in unknown]
    return "; ".join(text for text, _ in ordered), ordered[0][1]


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
