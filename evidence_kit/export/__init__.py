"""The evidence as tables: one row per journal record, for spreadsheets and dataframe libraries."""

from __future__ import annotations

from .tables import KINDS, TABLES, Table, evidence_tables, table_csv

__all__ = ["KINDS", "TABLES", "Table", "evidence_tables", "table_csv"]
