"""``evidence-kit scan``: the known-value scan of any folder."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import EXIT_FAILED
from ..redact import known_values_from_raw, load_known_values, load_policy, scan_tree
from .json_result import echo_result, json_option

__all__ = ["scan"]

_SHOWN = 50


@click.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    "policy",
    type=click.Path(path_type=Path),
    help="Redaction policy (TOML): its private values are hunted for, its public words allowed.",
)
@click.option(
    "--raw", "raws", multiple=True, type=click.Path(path_type=Path), help="Raw evidence folder whose private values to hunt for (repeatable)."
)
@click.option(
    "--map",
    "maps",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Private map written by 'redact --map' whose values to hunt for (repeatable).",
)
@json_option
def scan(folder: Path, policy: Path | None, raws: tuple[Path, ...], maps: tuple[Path, ...], as_json: bool) -> int:
    """Scan FOLDER (a bundle, a built site) for the known private values.

    Every file name and every line is searched, in every reading, for every
    spelling of the values the policy declares, the identities of each --raw
    folder and the values of each --map. Without any of them there is nothing
    to hunt. Findings name the kind, the file and the line, never the value.
    Exit 0: clean. Exit 1: something private was found.
    """
    loaded = load_policy(policy)
    known = [value for raw in raws for value in known_values_from_raw(raw)]
    known += [value for path in maps for value in load_known_values(path)]
    findings = scan_tree(folder, known_values=known, policy=loaded)
    if as_json:
        echo_result("scan", folder=str(folder), clean=not findings, findings=[str(f) for f in findings])
        return EXIT_FAILED if findings else 0
    if not findings:
        click.echo(f"{folder}: clean")
        return 0
    for finding in findings[:_SHOWN]:
        click.echo(f"evidence-kit: private: {finding}", err=True)
    if len(findings) > _SHOWN:
        click.echo(f"evidence-kit: ... and {len(findings) - _SHOWN} more", err=True)
    click.echo(f"evidence-kit: {folder}: {len(findings)} finding(s)", err=True)
    return EXIT_FAILED
