"""``evidence-kit schema``: write the JSON Schemas of the evidence contract."""

from __future__ import annotations

from pathlib import Path

import click

from ..canonical import canonical_json
from ..fsutil import write_files_atomically
from ..schemas import schemas


@click.command()
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("schemas"),
    show_default=True,
    help="Folder to write <name>.schema.json files into.",
)
def schema(out: Path) -> None:
    """Write the JSON Schema of every contract record (trial, journal record, telemetry
    sample, decision, manifest, receipt, analysis) into OUT."""
    files = {f"{name}.schema.json": canonical_json(body) for name, body in schemas().items()}
    write_files_atomically(out, files)
    for name in sorted(files):
        click.echo(str(out / name))
