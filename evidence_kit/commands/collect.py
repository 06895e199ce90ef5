"""``evidence-kit collect``: drive a trial (A/B/A, or the plan's longer design) from a plan and write its raw evidence."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from ..analyze.collected import collected_arms
from ..errors import EXIT_FAILED, EXIT_OK, BadInput
from ..read import load_trial
from ..read.files import read_text
from ..read.validation import line_of_key
from ..text_report import collected_text
from .command_line import command_line


@click.command()
@click.argument("plan", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Raw evidence folder to create (trial.json, journals/, telemetry/, logs/).",
)
@click.option("--resume", is_flag=True, help="Continue an interrupted trial in OUT from its last complete run.")
@click.option(
    "--workers",
    "workers",
    type=str,
    default=None,
    metavar="N|auto",
    help="Processes that stream the timed requests (overrides the plan's [workload] workers; default: the plan's, else auto).",
)
@click.option(
    "--ray",
    "ray",
    type=str,
    default=None,
    metavar="ADDRESS|auto",
    help="Run the workers as actors on the Ray cluster at ADDRESS (HOST:PORT; auto: the one started on this "
    "machine); overrides the plan's [workload] ray. Needs evidence-kit[ray].",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars; print only the final summary.")
def collect(plan: Path, out: Path, resume: bool, workers: str | None, ray: str | None, quiet: bool) -> int:
    """Run the trial PLAN (TOML) before -> candidate -> restored (or its longer sequence) and write native journals to OUT.

    Exit 0 when every arm passed its gates and checks, 1 when a gate, check or
    arm failed (recorded in the journals), 2 for a bad plan or output folder,
    130 when interrupted (the journals stay resumable with --resume).
    """
    # Imported when the command runs, not at the top: `evidence-kit --help` imports every command's module
    # to list it, and the collector (httpx, rich, prometheus-client) would add about 0.3 s to that.
    from ..collect import Progress, RichProgress, collect_trial, load_plan
    from ..collect.connections import ensure_descriptors
    from ..collect.failures import failure_lines
    from ..collect.progress import LineProgress
    from ..collect.ray_workers import RayUnavailable
    from ..collect.workers import WorkerFailed

    loaded = load_plan(plan)
    try:
        ensure_descriptors(loaded.workload.most_in_flight())
    except ValueError as err:
        wl = loaded.workload
        key = "concurrency" if wl.concurrency else "max_in_flight" if wl.max_in_flight else "requests_per_run"
        line = line_of_key(read_text(plan), ("workload", key), toml=True)
        raise BadInput(str(err), plan, line) from None
    # Off a terminal (a CI log, a file) the bars would be hard-wrapped at 80 columns: plain lines instead.
    progress = Progress() if quiet else RichProgress() if sys.stderr.isatty() else LineProgress()
    try:
        result = collect_trial(loaded, out, resume=resume, progress=progress, workers=_workers(workers), ray=ray)
    except KeyboardInterrupt:
        click.echo(f"evidence-kit: interrupted; continue with: {command_line('collect', plan, '--out', out, '--resume')}", err=True)
        return 130
    except RayUnavailable as err:
        click.echo(f"evidence-kit: {err}; nothing was written", err=True)
        return EXIT_FAILED
    except WorkerFailed as err:
        click.echo(
            f"evidence-kit: {err}; the run it was in is not recorded; continue with: {command_line('collect', plan, '--out', out, '--resume')}",
            err=True,
        )
        return EXIT_FAILED
    for arm in result.arms:
        click.echo(f"{arm.ref.seq:02d} {arm.ref.arm} ({arm.ref.phase}): {'ok' if arm.ok else 'FAILED'}")
    for failure in failure_lines(result):
        click.echo(failure)
    click.echo(f"evidence written to {out}")
    _summary(out, result.trial.trial_id, ran=result.ok)
    if not result.ok:
        click.echo("")
        click.echo(f"collection FAILED: the trial did not run as planned (each failed arm and why are above); {out} is not ready to publish")
    return EXIT_OK if result.ok else EXIT_FAILED


def _workers(value: str | None) -> int | str | None:
    """``--workers``: "auto" or a number (judged, with the plan's concurrency, by ``collect_trial``)."""
    if value is None or value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        return value  # refused by collect_trial with the same words as a plan's bad value


def _summary(out: Path, trial_id: str, *, ran: bool) -> None:
    """Each arm's requests and latencies, read back from the journals, then (for a trial that ran) the commands that come next."""
    click.echo("")
    try:
        lines = collected_text(collected_arms(load_trial(out)))
    except BadInput as err:
        lines = [f"no summary: the journals do not load ({err})"]
    for line in [*lines, *(["", *next_steps(out, trial_id)] if ran else [])]:
        click.echo(line)


def next_steps(out: Path, trial_id: str) -> list[str]:
    """The commands after ``collect``, with this trial's paths: redact, analyze, build, verify; each runs as printed."""
    out = out if out.name else out.resolve()  # "--out ." has no name to derive the others' from
    decision = out.parent if out.parent.name else out.resolve().parent
    keygen = command_line("keygen", "--out", "keys") + "    # once"
    verify = command_line("verify", "site", "--key", "keys/signing.pub")
    if (decision / "decision.toml").is_file():
        # The trial is one of a decision folder's (as the demo lays them out): that folder is what is published.
        redacted, private = decision.with_name(decision.name + "-redacted"), decision.with_name(decision.name + "-map.json")
        return [
            "Next (docs/cli.md):",
            f"  {command_line('redact', decision, '--out', redacted, '--map', private)}    # the map stays private",
            f"  {command_line('analyze', redacted)}",
            f"  {keygen}",
            f"  {command_line('build', redacted, '--out', 'site', '--known-values', private, '--sign', 'keys/signing.key')}",
            f"  {verify}",
        ]
    redacted, private = out.with_name(out.name + "-redacted"), out.with_name(out.name + "-map.json")
    return [
        "Next (docs/cli.md):",
        f"  {command_line('redact', out, '--out', redacted, '--map', private)}    # the map stays private",
        f"  {command_line('analyze', redacted)}",
        f"To publish, put {shlex.quote(str(out))} in a decision folder: one holding it and a decision.toml with "
        f'trials = ["{trial_id}"] (docs/contract.md); redact that folder instead, then:',
        f"  {keygen}",
        "  evidence-kit build REDACTED-DECISION --out site --known-values MAP --sign keys/signing.key",
        f"  {verify}",
    ]
