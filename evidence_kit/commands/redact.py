"""``evidence-kit redact``: write a bundle from raw evidence's typed records, then scan it."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import EXIT_FAILED, BadInput
from ..read import load_any, require_completed
from ..redact import redact_bundle
from .json_result import echo_result, json_option

__all__ = ["redact", "read_key"]

_SHOWN = 50


def read_key(path: Path | None) -> bytes | None:
    """The redaction key: the file's bytes exactly (at least 16 of them), or ``None``."""
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError as err:
        raise BadInput(f"cannot read the key ({err.strerror})", path) from None


@click.command()
@click.argument("raw", type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="Folder to write the bundle into.")
@click.option(
    "--policy", "policy", type=click.Path(path_type=Path), help="Redaction policy (TOML): values to hunt, words never to hunt, dropped files."
)
@click.option(
    "--key",
    "key",
    type=click.Path(path_type=Path),
    help="Redaction key file (>= 16 bytes): keyed pseudonyms, the same in every bundle. Without it, pseudonyms are per-run counters.",
)
@click.option("--replace", is_flag=True, help="Overwrite OUT if it is not empty.")
@click.option(
    "--map",
    "map_out",
    type=click.Path(path_type=Path),
    help="Also write the private map (pseudonym -> original values) here, mode 0600. Never publish it.",
)
@json_option
def redact(raw: Path, out: Path, policy: Path | None, key: Path | None, replace: bool, map_out: Path | None, as_json: bool) -> int:
    """Write RAW (a trial folder or a decision folder) into OUT as a publishable bundle.

    Every contract file is read through its model and written from its records:
    identities as pseudonyms, secrets and undeclared fields left out, a failed
    request's reason as a code. Every other file (logs/ included) is withheld and
    listed by name, size and sha256; a format reader may publish a typed record of
    it. Writes receipt.json and manifest.json per trial bundle (and for a decision
    folder its own, over everything below it), then scans the whole output for
    every known private value in every spelling.
    Exit 0: clean. Exit 1: a known value was found; OUT is marked NOT-PUBLISHABLE.txt
    and has no manifest. Exit 2: bad input (prose holding a private value
    included); nothing is written. RAW is never modified.
    """
    require_completed(load_any(raw))  # what is redacted is read as build will read it: refused now, not after
    result = redact_bundle(raw, out, policy=policy, key=read_key(key), replace=replace, map_out=map_out)
    replaced = sum(sum(found.values()) for found in result.counts.values())
    if as_json:
        echo_result(
            "redact",
            bundle=str(result.out),
            trial_bundles=len(result.bundles),
            pseudonyms=replaced,
            files_pseudonymised=len(result.counts),
            files_withheld=len(result.withheld),
            key_id=result.key_id,
            map=None if map_out is None else str(map_out),
            publishable=result.publishable,
            findings=[str(f) for f in result.findings],
        )
        return 0 if result.publishable else EXIT_FAILED
    click.echo(
        f"{result.out}: {len(result.bundles)} trial bundle(s), {replaced} pseudonym(s) in {len(result.counts)} file(s), "
        f"{len(result.withheld)} file(s) withheld, key {result.key_id}"
    )
    if result.publishable:
        click.echo("known-value scan: clean")
        return 0
    for finding in result.findings[:_SHOWN]:
        click.echo(f"evidence-kit: private: {finding}", err=True)
    if len(result.findings) > _SHOWN:
        click.echo(f"evidence-kit: ... and {len(result.findings) - _SHOWN} more", err=True)
    click.echo(
        f"evidence-kit: {result.out}: NOT publishable ({len(result.findings)} finding(s)); see NOT-PUBLISHABLE.txt, fix the policy and redact again",
        err=True,
    )
    return EXIT_FAILED
