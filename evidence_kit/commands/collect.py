"""``evidence-kit collect``: drive a trial (A/B/A, or the plan's longer design) from a plan and write its raw evidence."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import EXIT_FAILED, EXIT_OK


@click.command()
@click.argument("plan", type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Raw evidence folder to create (trial.json, journals/, telemetry/, logs/).")
@click.option("--resume", is_flag=True, help="Continue an interrupted trial in OUT from its last complete run.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars; print only the final summary.")
def collect(plan: Path, out: Path, resume: bool, quiet: bool) -> int:
    """Run the trial PLAN (TOML) before -> candidate -> restored (or its longer sequence) and write native journals to OUT.

    Exit 0 when every arm passed its gates and checks, 1 when a gate, check or
    arm failed (recorded in the journals), 2 for a bad plan or output folder,
    130 when interrupted (the journals stay resumable with --resume).
    """
    # Imported when the command runs, not at the top: `evidence-kit --help` imports every command's module
    # to list it, and the collector (httpx, rich, prometheus-client) would add about 0.3 s to that.
    from ..collect import Progress, RichProgress, collect_trial, load_plan

    loaded = load_plan(plan)
    progress = Progress() if quiet else RichProgress()
    try:
        result = collect_trial(loaded, out, resume=resume, progress=progress)
    except KeyboardInterrupt:
        click.echo(f"evidence-kit: interrupted; continue with: evidence-kit collect {plan} --out {out} --resume",
                   err=True)
        return 130
    for arm in result.arms:
        runs = "ok" if arm.ok else "FAILED"
        click.echo(f"{arm.ref.seq:02d} {arm.ref.arm} ({arm.ref.phase}): {runs}")
    for problem in result.problems:
        click.echo(f"  {problem}")
    click.echo(f"evidence written to {out}")
    return EXIT_OK if result.ok else EXIT_FAILED
