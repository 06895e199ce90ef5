"""``evidence-kit demo``: the whole chain on the embedded simulated engine."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import EXIT_FAILED, EXIT_OK
from ..text_report import render_text
from .command_line import command_line


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("out/demo"),
    show_default=True,
    help="Folder for everything the demo writes; replaced if it holds an earlier demo, refused otherwise.",
)
def demo(out: Path) -> int:
    """Run the whole chain on the embedded simulated engine: collect two A/B/A trials
    (cache-layout and DFlash candidates against the original), redact, analyze, build
    the signed site and verify it. Prints the decision tables and how to open the site.
    """
    # Imported when the command runs, not at the top: `evidence-kit --help` imports every command's module
    # to list it, and the whole chain (collector, simulator, redactor) would add about 0.3 s to that.
    from ..collect import RichProgress
    from ..demo import run_demo

    def say(line: str) -> None:
        click.echo(line, err=True)

    result = run_demo(out, say=say, progress_factory=RichProgress if sys.stderr.isatty() else None)
    click.echo(render_text(result.analysis), nl=False)
    click.echo("")
    for problem in result.problems:
        click.echo(f"collection problem: {problem}")
    click.echo(result.verify_text, nl=False)
    click.echo("")
    signing = result.out / "private" / "signing" / "signing.pub"
    click.echo(f"Raw evidence (private):      {result.out / 'raw'}")
    click.echo(f"Published evidence:          {result.decision}")
    click.echo(f"Site (HTML):                 {result.site / 'public' / 'index.html'}")
    click.echo(f"Signing key id (publish it): {result.key_id}")
    click.echo("Open the site (then http://127.0.0.1:8000/; Ctrl-C stops it):")
    click.echo(f"  {command_line('serve', result.site)}")
    click.echo("Verify it again, by the public key or by the key id alone:")
    click.echo(f"  {command_line('verify', result.site, '--key', signing)}")
    click.echo(f"  {command_line('verify', result.site, '--key-id', result.key_id)}")
    return EXIT_OK if result.verified and result.collected_ok else EXIT_FAILED
