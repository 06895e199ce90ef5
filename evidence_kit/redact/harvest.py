"""Harvest the known private values of raw evidence before anything is rewritten.

Like ``sos clean`` seeding its maps from authoritative sources first: every
string under a ``private`` object (journal headers, trial files, any JSON file
of the trial) is a known value, classed by its shape and the key it sat under.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import BadInput
from .policy import Policy
from .variants import KnownValue, classify

__all__ = ["harvest_file", "harvest_private", "known_values_from_raw", "load_known_values"]


def harvest_private(obj: Any, key: str = "") -> Iterator[KnownValue]:
    """Every string in a ``private`` object (and every key that looks like an identity)."""
    if isinstance(obj, str):
        if obj.strip():
            yield KnownValue(classify(obj, key), obj)
    elif isinstance(obj, dict):
        for name, value in obj.items():
            if classify(name) != "value":  # a GPU UUID or a path used as a key is private too
                yield KnownValue(classify(name), name)
            yield from harvest_private(value, name if isinstance(value, (str, list)) else f"{key}.{name}")
    elif isinstance(obj, list):
        for item in obj:
            yield from harvest_private(item, key)


def harvest_file(path: Path, kind: str) -> list[KnownValue]:
    """Private values in one file: a JSON document's top-level ``private``, or a JSONL header's."""
    if kind not in ("json", "jsonl"):
        return []
    try:
        with path.open("r", encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.readline() if kind == "jsonl" else handle.read()
        if not text.strip():
            return []
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("private"), (dict, list, str)):
            return list(harvest_private(data["private"], "private"))
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON ({err.msg})", path, err.lineno) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", path) from None
    return []


def known_values_from_raw(raw: Path, policy: Policy | None = None) -> list[KnownValue]:
    """The known private values of a raw trial or decision folder (and its policy).

    For the site builder and ``scan --raw``: the values to hunt for in anything
    built from that evidence. Nothing is written.
    """
    from .walkers import file_kind  # local: walkers imports the matcher, which this module need not

    raw = Path(raw)
    if not raw.is_dir():
        raise BadInput("not a folder", raw)
    found: list[KnownValue] = list(policy.known_values()) if policy else []
    for path in sorted(p for p in raw.rglob("*") if p.is_file() and not p.is_symlink()):
        found += harvest_file(path, file_kind(path))
    return found


def load_known_values(path: Path) -> list[KnownValue]:
    """Known values from a private map written by ``redact --map`` (its ``values`` lists)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        entries: Iterable[dict[str, Any]] = data["entries"]
        return [KnownValue(str(e["class"]), str(v)) for e in entries for v in e["values"]]
    except FileNotFoundError:
        raise BadInput("file not found", path) from None
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise BadInput(f"not a redaction map ({type(err).__name__})", path) from None
