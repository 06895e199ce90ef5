"""CSV as evidence-kit writes it: the chart data of a site and the exported evidence alike.

A header row, ``\\n`` line ends, full-precision numbers (``repr`` of a float, so a value read
back is the value written), an empty cell for an absent value, and a text that starts like a
spreadsheet formula (``=``, ``+``, ``-``, ``@``, tab, carriage return) guarded by a leading ``'``
(OWASP's CSV-injection guard), so a label such as ``=HYPERLINK(…)`` opens as text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["FORMULA_START", "csv_bytes", "csv_cell"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell: empty for absent; a formula-like text guarded with a leading ``'``."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_bytes(rows: Iterable[Mapping[str, Any]], fields: Sequence[str]) -> bytes:
    """``rows`` as CSV with the header ``fields`` (each row gives every field), UTF-8."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: csv_cell(row[k]) for k in fields})
    return buffer.getvalue().encode()
