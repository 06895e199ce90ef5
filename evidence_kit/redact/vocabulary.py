"""The words that are public by definition: the evidence format's, English, the site templates'.

The redactor hunts the parts of a private value on their own (a path's folder
names, a host's short name, a model's base name). When such a part is spelled
like a word the evidence format uses — a record type (``check``), a field name
(``phase``), an enum value (``before``), a telemetry field (``engine``) — replacing
it would rewrite the structure of the evidence, not a private value in it: a
checkout under ``/check/...`` once turned every ``"type": "check"`` record into
``"type": "path-…"``. So these words are public, like ``localhost``; the whole
private value (the full path, the full host name) is still hunted.

The words come from the contract's JSON Schemas alone (property names, required
names, enum and const values), each also split at ``_``/``-``/``.``/``:``/``/`` (a
part matches inside ``generation_tokens``, so it must be public too). The schemas
are generated from the models, telemetry samples included (their engine counters
and gauges, GPU fields, process and cgroup memory), so a field added to a model is
public with no list to keep.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..schemas import schemas
from .formats import public_words

_TEMPLATES = Path(__file__).resolve().parents[1] / "render" / "templates"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")
# The tool's own names, which every page and schema of a site holds.
_OWN = ("evidence-kit", "evidence_kit", "evidence", "kit", "mkdocs", "material", "vega", "altair")

__all__ = ["english_words", "format_words", "template_words"]

_SPLIT = re.compile(r"[_\-.:/]+")


def _schema_words(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                yield from value
            elif key in ("enum", "const"):
                yield from (v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str))
            elif key == "required" and isinstance(value, list):
                yield from (v for v in value if isinstance(v, str))
            yield from _schema_words(value)
    elif isinstance(node, list):
        for item in node:
            yield from _schema_words(item)


@lru_cache(maxsize=1)
def format_words() -> frozenset[str]:
    """Every word of the evidence format, case-folded, with its ``_``/``-``-separated parts: the
    contract's schemas' and every word a format reader's public field may hold."""
    words: set[str] = set(public_words())
    for schema in schemas().values():
        words.update(_schema_words(schema))
    out: set[str] = set()
    for word in words:
        out.add(word.casefold())
        out.update(part.casefold() for part in _SPLIT.split(word) if part)
    return frozenset(out)


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Ordinary English words (the ``english-words`` package's web2 list), lower case."""
    from english_words import get_english_words_set  # type: ignore[import-untyped]

    return frozenset(get_english_words_set(["web2"], lower=True))


@lru_cache(maxsize=1)
def template_words() -> frozenset[str]:
    """Every word of the site's own templates (``templates/``) and the tool's own names, lower case,
    with the parts of hyphenated and underscored words."""
    words: set[str] = set(_OWN)
    if _TEMPLATES.is_dir():
        for path in sorted(_TEMPLATES.rglob("*")):
            if path.is_file():
                for word in _WORD.findall(path.read_text(encoding="utf-8", errors="replace")):
                    words.add(word.casefold())
                    words.update(part.casefold() for part in _SPLIT.split(word) if part)
    return frozenset(words)
