"""Chart-data CSV cells: formula-like labels stay text in a spreadsheet; numbers stay numbers."""

from __future__ import annotations

import csv
import io

from evidence_kit.render.chart_data import rows_csv


def test_formula_like_labels_get_a_leading_quote_and_numbers_do_not() -> None:
    fields = ("arm_label", "group", "value", "note")
    rows = [
        {"arm_label": '=HYPERLINK("http://evil.invalid","x")', "group": "+1 short", "value": -0.25, "note": None},
        {"arm_label": "@SUM(A1)", "group": "-C4", "value": 1.5, "note": "\tcmd"},
        {"arm_label": "Original before", "group": "~8K / C1", "value": 0.0, "note": "a = b"},
    ]
    out = list(csv.DictReader(io.StringIO(rows_csv(rows, fields).decode())))
    assert [r["arm_label"] for r in out] == ['\'=HYPERLINK("http://evil.invalid","x")', "'@SUM(A1)", "Original before"]
    assert [r["group"] for r in out] == ["'+1 short", "'-C4", "~8K / C1"]
    assert [r["value"] for r in out] == ["-0.25", "1.5", "0.0"]  # a negative number is a number, unguarded
    assert [r["note"] for r in out] == ["", "'\tcmd", "a = b"]
