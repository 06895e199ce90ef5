"""``evidence-kit demo``: the whole chain on embedded, clearly labelled example evidence."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from ..analyze import analyze as analyze_evidence
from ..bundle import load_decision
from ..errors import BadInput
from ..examples.reference import write_reference_decision
from ..text_report import render_text


@click.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out/demo"), show_default=True,
              help="Folder for everything the demo writes; replaced if it holds an earlier demo.")
def demo(out: Path) -> None:
    """Run the demo: write example evidence, analyse it and print the decision tables.

    The example is the reference decision page reconstructed from its published
    medians (labelled simulated: it is not a measurement).
    """
    marker = out / ".evidence-kit-demo"
    if out.exists() and any(out.iterdir()) and not marker.exists():
        raise BadInput("exists, is not empty and holds no earlier demo; choose another --out", out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    marker.write_text("written by evidence-kit demo\n")
    decision = write_reference_decision(out / "evidence" / "reference-reconstruction")
    click.echo(render_text(analyze_evidence(load_decision(decision))), nl=False)
    click.echo(f"\nEvidence written to {decision}; analyse it again with: evidence-kit analyze {decision}")
