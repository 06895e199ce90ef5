"""Compare what a site publishes with what was recomputed: JSON documents and CSV tables.

Each function returns ``(figure, published, recomputed)`` triples, one per
mismatch, so the report can say which figure differs and by how much. Pages are
compared by their text (:mod:`.page_text`).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

__all__ = ["json_mismatches", "csv_mismatches", "Mismatch"]

Mismatch = tuple[str, str, str]


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) if not isinstance(value, str) else value


def json_mismatches(published: Any, recomputed: Any, path: str = "", ignore: frozenset[str] = frozenset()) -> Iterator[Mismatch]:
    """Every leaf where two JSON documents differ, named by its path (``trials[0].groups[1].verdict.win``)."""
    if isinstance(published, dict) and isinstance(recomputed, dict):
        for key in sorted(set(published) | set(recomputed)):
            where = f"{path}.{key}" if path else key
            if where in ignore:
                continue
            if key not in published:
                yield where, "(absent)", _show(recomputed[key])
            elif key not in recomputed:
                yield where, _show(published[key]), "(absent)"
            else:
                yield from json_mismatches(published[key], recomputed[key], where, ignore)
    elif isinstance(published, list) and isinstance(recomputed, list):
        for i in range(max(len(published), len(recomputed))):
            where = f"{path}[{i}]"
            if i >= len(published):
                yield where, "(absent)", _show(recomputed[i])
            elif i >= len(recomputed):
                yield where, _show(published[i]), "(absent)"
            else:
                yield from json_mismatches(published[i], recomputed[i], where, ignore)
    elif type(published) is not type(recomputed) and not (
        # 3 and 3.0 are the same figure; a boolean is never a number (True == 1 in Python).
        isinstance(published, (int, float))
        and isinstance(recomputed, (int, float))
        and not isinstance(published, bool)
        and not isinstance(recomputed, bool)
    ):
        yield path or "(document)", _show(published), _show(recomputed)
    elif published != recomputed:
        yield path or "(document)", _show(published), _show(recomputed)


def csv_mismatches(published: bytes, recomputed: bytes, key: str = "run") -> Iterator[Mismatch]:
    """Cells that differ between two CSV tables with a header row, named ``line N <key>: column``."""
    try:
        pub_rows = list(csv.DictReader(io.StringIO(published.decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error) as err:
        yield "(table)", f"not readable CSV ({err})", "a CSV table"
        return
    rec_rows = list(csv.DictReader(io.StringIO(recomputed.decode("utf-8"))))
    pub_head = published.split(b"\n", 1)[0].decode("utf-8", "replace")
    rec_head = recomputed.split(b"\n", 1)[0].decode("utf-8", "replace")
    if pub_head != rec_head:
        yield "header", pub_head, rec_head
        return
    for i in range(max(len(pub_rows), len(rec_rows))):
        line = i + 2
        if i >= len(pub_rows):
            yield f"line {line}", "(absent)", f"row {rec_rows[i].get(key, '')}"
            continue
        if i >= len(rec_rows):
            yield f"line {line}", f"row {pub_rows[i].get(key, '')}", "(absent)"
            continue
        for column, want in rec_rows[i].items():
            got = pub_rows[i].get(column)
            if got != want:
                yield f"line {line} {rec_rows[i].get(key, '')}: {column}", str(got), str(want)
