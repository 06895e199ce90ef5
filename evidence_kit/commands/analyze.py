"""``evidence-kit analyze``: decision tables and outcome from evidence."""

from __future__ import annotations

from pathlib import Path

import click

from ..analyze import analysis_json
from ..api import open as open_evidence
from ..canonical import canonical_json
from ..text_report import render_text


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the analysis document (evidence-kit/analysis/v2) as JSON.")
def analyze(paths: tuple[Path, ...], as_json: bool) -> None:
    """Print decision tables and the outcome for each decision folder or trial bundle in PATHS.

    Exit 0 when analysed, 2 when any input is unreadable, breaks the evidence contract or
    holds a trial in which no timed request completed (nothing is printed for the other paths then).
    """
    # The API's reading and analysis: a trial that measured nothing is refused, never shown as dashes.
    opened = [open_evidence(path) for path in paths]
    analyses = [ev.analyzed() for ev in opened]
    if as_json:
        if len(analyses) == 1:
            click.echo(analysis_json(analyses[0]), nl=False)
        else:
            docs = [a.model_dump(mode="json", by_alias=True) for a in analyses]
            click.echo(canonical_json(docs, ascii_only=True).decode(), nl=False)
        return
    click.echo("\n".join(render_text(a) for a in analyses), nl=False)
