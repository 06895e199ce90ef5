"""Canonical JSON: the one way evidence-kit writes a JSON document as a file.

Two-space indent and a final newline, always. Keys are sorted, except where a
record's declared field order is the contract's own (``manifest.json``,
``trial.json``); text is UTF-8, except in the files that have always been written
ASCII-escaped (the analysis document, ``trial.json``), whose bytes must not change
for a given evidence. The same data therefore always gives the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["canonical_json"]


def canonical_json(value: Any, *, sort_keys: bool = True, ascii_only: bool = False) -> bytes:
    """``value`` as indented JSON with a final newline: sorted keys unless ``sort_keys`` is false
    (the record's own order), UTF-8 unless ``ascii_only`` (``\\uXXXX`` escapes)."""
    return (json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ascii_only) + "\n").encode("utf-8")
