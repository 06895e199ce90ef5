"""``evidence-kit export``: the evidence as tables a spreadsheet or a dataframe library opens."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import open as open_evidence
from ..export import table_csv
from ..fsutil import write_files_atomically

__all__ = ["export"]


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "parquet"]),
    default="csv",
    show_default=True,
    help="The tables' file format: csv (spreadsheet-safe text) or parquet (typed, as the Python API's frames; pyarrow).",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Folder to write requests, runs and telemetry (.csv or .parquet) into (created if missing).",
)
def export(path: Path, fmt: str, out: Path) -> None:
    """Write the requests, runs and telemetry samples of PATH (a decision folder or trial bundle) as
    tables into OUT: one row per journal record, with trial, arm, phase, block and group columns.

    Exit 0, or 2 on bad input or a trial in which no timed request completed (nothing is written then).
    """
    evidence = open_evidence(path)  # a trial that measured nothing is refused, never written as empty tables
    if fmt == "parquet":
        from ..export.parquet import frame_parquet

        frames = {"requests": evidence.requests(), "runs": evidence.runs(), "telemetry": evidence.telemetry()}
        tables = evidence.tables()
        files = {
            f"{name}.parquet": frame_parquet(frame, [c for c, kind in tables[name].columns.items() if kind == "json"])
            for name, frame in frames.items()
        }
    else:
        files = {f"{name}.{fmt}": table_csv(table) for name, table in evidence.tables().items()}
    write_files_atomically(out, files)
    for name in files:
        click.echo(str(out / name))
