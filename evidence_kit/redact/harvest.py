"""Harvest the known private values of raw evidence before anything is rewritten.

Like ``sos clean`` seeding its maps from authoritative sources first: every
value under a ``private`` object (journal headers and records, trial files, any
JSON file of the trial) is a known value, classed by its shape and the key it
sat under. Keys are values too, unless they are spelled like a field name
(``tensor_parallel_size``): a mapping keyed by host (``"per_host": {"dgx-b200-rack4":
…}``) names its hosts in its keys. A number is an identity (a serial, an id) when it
has :data:`~.variants.MIN_DIGITS` digits or more and its key does not name a
quantity; a small setting (a tensor-parallel size of 2) never is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import BadInput
from .variants import MIN_DIGITS, KnownValue, classify, integral_digits

__all__ = ["harvest_file", "harvest_private", "harvest_document", "load_known_values"]

# A key spelled like a field name: lowercase words joined by underscores. Anything else
# (digits, hyphens, dots, capitals: dgx-b200-rack4, GPU-…, 10.0.0.7, node7) is a value.
_FIELD_NAME = re.compile(r"^[a-z]+(?:_[a-z]+)*$")
# Keys of quantities and settings: a number under them is a measurement, not an identity.
_QUANTITY = re.compile(
    r"(?:^|[._])(?:len|length|size|count|num|max|min|blocks?|tokens?|bytes|pid|port|ratio|rate|seconds?|"
    r"timeout|limit|utili[sz]ation|util|memory|mib|mb|gb|version|slots|time|timestamp|epoch)(?:[._]|$)"
)


def _number_class(key: str) -> str:
    """A number that identifies is a serial (a board, a GPU, an account), or a token under a secret's key."""
    return "token" if classify("0", key) == "token" else "serial"


def harvest_private(obj: Any, key: str = "") -> Iterator[KnownValue]:
    """Every value in a ``private`` object, its keys not spelled like field names, and its identifying numbers."""
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        digits = integral_digits(obj)  # a serial written as 1322021012345.0 by a JavaScript tool is still one
        if digits is not None and len(digits) >= MIN_DIGITS and not _QUANTITY.search(key.lower()):
            yield KnownValue(_number_class(key), digits)
    elif isinstance(obj, str):
        value = obj.strip()
        if value and not (value.isdigit() and _QUANTITY.search(key.lower())):
            yield KnownValue(_number_class(key) if value.isdigit() else classify(obj, key), obj)
    elif isinstance(obj, dict):
        for name, value in obj.items():
            if not _FIELD_NAME.match(name) and name.strip():
                yield KnownValue(classify(name, key), name)
            yield from harvest_private(value, name if not isinstance(value, dict) else f"{key}.{name}")
    elif isinstance(obj, list):
        for item in obj:
            yield from harvest_private(item, key)


def harvest_document(data: Any) -> list[KnownValue]:
    """The private values of one parsed JSON document (its top-level ``private``)."""
    if isinstance(data, dict) and "private" in data:
        return list(harvest_private(data["private"], "private"))
    return []


def harvest_file(path: Path, kind: str) -> list[KnownValue]:
    """Private values in one file: a JSON document's top-level ``private``, or a JSONL header's.

    (A JSONL line after the first is harvested as it is read: see
    :func:`~.walkers.file_texts`.)
    """
    if kind not in ("json", "jsonl"):
        return []
    try:
        with path.open("r", encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.readline() if kind == "jsonl" else handle.read()
        if not text.strip():
            return []
        return harvest_document(json.loads(text))
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON ({err.msg})", path, err.lineno) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", path) from None
    except ValueError:  # not a JSONDecodeError: an integer of more digits than Python converts
        raise BadInput("not valid JSON (a number of too many digits)", path, 1 if kind == "jsonl" else None) from None


def load_known_values(path: Path) -> list[KnownValue]:
    """Known values from a private map written by ``redact --map`` (its ``values`` lists)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        entries: Iterable[dict[str, Any]] = data["entries"]
        return [KnownValue(str(e["class"]), str(v)) for e in entries for v in e["values"]]
    except FileNotFoundError:
        raise BadInput("file not found", path) from None
    except UnicodeDecodeError:
        raise BadInput("not a redaction map (not UTF-8 text)", path) from None
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise BadInput(f"not a redaction map ({type(err).__name__})", path) from None
