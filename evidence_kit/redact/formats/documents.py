"""Read a JSON or YAML document whole, within bounds, and take typed values out of it.

A document is read up to ``MAX_BYTES`` (a larger one is unreadable, read as nothing), YAML with
the safe loader only; its lists are read up to a bound, so neither size nor YAML aliases make a
reader's walk unbounded. The helpers take a value only when it has the type asked for.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from typing import Any

import yaml

__all__ = ["MAX_BYTES", "MAX_ITEMS", "at", "count", "document", "flag", "items", "text", "whole"]

MAX_BYTES = 8 * 2**20
MAX_ITEMS = 1024
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def document(lines: Iterable[str]) -> Any:
    """The JSON (if it opens with ``{`` or ``[``) or YAML document of ``lines``; ``None`` when unreadable or too large."""
    parts, size = [], 0
    for line in lines:
        size += len(line)
        if size > MAX_BYTES:
            return None
        parts.append(line)
    body = "".join(parts)
    try:
        return json.loads(body) if body.lstrip().startswith(("{", "[")) else yaml.load(body, Loader=_LOADER)  # noqa: S506 (a safe loader)
    except (ValueError, yaml.YAMLError, RecursionError):
        return None


def at(node: Any, *keys: str) -> Any:
    """``node[k1][k2]...``, or ``None`` where a step is missing or not a mapping."""
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def items(node: Any, limit: int = MAX_ITEMS) -> list[Any]:
    """The first ``limit`` items of a list, or none."""
    return node[:limit] if isinstance(node, list) else []


def text(value: Any) -> str | None:
    """A non-empty string (an unquoted YAML timestamp as RFC 3339), or ``None``."""
    if isinstance(value, dt.datetime):
        stamp = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return stamp.isoformat().replace("+00:00", "Z")
    return value if isinstance(value, str) and value else None


def whole(value: Any) -> int | None:
    """An integer (or its digits, as YAML's base loader or a label gives it), or ``None``; never a boolean."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,18}", value) else None


def flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def count(value: Any) -> int:
    """How many entries a mapping or a list has (0 for anything else)."""
    return len(value) if isinstance(value, (dict, list)) else 0
