"""``evidence-kit build``: decision folders in, an offline, scanned MkDocs site out."""

from __future__ import annotations

from pathlib import Path

import click

from ..attest.keys import key_id, load_private_key
from ..publish import build_site
from ..publish.site import BUILD_STEPS
from .command_line import command_line
from .json_result import echo_result, json_option
from .verbosity import command_steps


@click.command()
@click.argument("decisions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Site folder: receives mkdocs.yml, site/ (Markdown) and public/ (HTML).",
)
@click.option(
    "--known-values",
    "maps",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A private map from `redact --map`: its values must not appear in the site (repeatable).",
)
@click.option(
    "--policy",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Redaction policy whose declared values and public words the known-value scan uses.",
)
@click.option(
    "--sign",
    "sign_key",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Ed25519 private key (from `evidence-kit keygen`): sign public/ with a DSSE envelope "
    "(public/manifest.dsse.json) around an in-toto Statement of every file.",
)
@json_option
def build(decisions: tuple[Path, ...], out: Path, maps: tuple[Path, ...], policy: Path | None, sign_key: Path | None, as_json: bool) -> None:
    """Build the site of the decision folders DECISIONS into OUT.

    Renders the pages, charts and chart data, copies the evidence, runs
    `mkdocs build --strict` offline, writes public/manifest.json and scans the
    finished site for the known private values. Exit 0 when built, 1 when MkDocs
    or the known-value scan failed, 2 on bad input; OUT is unchanged unless the build succeeded.
    """
    kid = None
    if sign_key is not None:
        # A bad key is bad input before anything is built.
        kid = key_id(load_private_key(sign_key).public_key())
    steps = command_steps("build", BUILD_STEPS, as_json=as_json)
    try:
        result = build_site(list(decisions), out, private_maps=list(maps), policy=policy, sign_key=sign_key, steps=steps)
    finally:
        steps.close()
    if as_json:
        public = result.out / "public"
        echo_result(
            "build",
            site=str(result.out),
            index=str(public / "index.html"),
            decisions=len(result.decisions),
            pages=result.pages,
            scanned_known_values=bool(maps),
            signed=None if kid is None else str(public / "manifest.dsse.json"),
            key_id=kid,
        )
        return
    if not maps:
        # The scan hunts known values only: this operator's hosts, models and serials are in the map.
        click.echo(
            "evidence-kit: warning: built without --known-values: the site was not scanned for this operator's "
            "private values (pass the map from `redact --map`)",
            err=True,
        )
    if kid is not None:
        click.echo(f"signed: {result.out / 'public' / 'manifest.dsse.json'}")
        click.echo(f"key id: {kid} (publish it: auditors pin it with `evidence-kit verify SITE --key-id {kid}`)")
    click.echo(f"built {len(result.decisions)} decision(s), {result.pages} pages: {result.out / 'public' / 'index.html'}")
    click.echo("open it (then http://127.0.0.1:8000/; Ctrl-C stops it):")
    click.echo(f"  {command_line('serve', result.out)}")
