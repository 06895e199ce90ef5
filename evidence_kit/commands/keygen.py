"""``evidence-kit keygen``: an Ed25519 signing key pair for ``build --sign``."""

from __future__ import annotations

from pathlib import Path

import click

from ..attest.keys import generate_keypair


@click.command()
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder that receives signing.key (mode 0600) and signing.pub (mode 0644); existing keys are never overwritten.",
)
def keygen(out: Path) -> None:
    """Write a new Ed25519 key pair into OUT and print the public key and its key id.

    The key id is the sha256 of the raw 32-byte public key, in hex. Keep
    signing.key private; publish signing.pub (or its key id) so auditors can pin
    it with `evidence-kit verify --key`.
    """
    private_path, public_path, kid = generate_keypair(out)
    click.echo(f"private key: {private_path} (mode 0600; keep it private)")
    click.echo(f"public key:  {public_path} (mode 0644; publish it)")
    click.echo(f"key id:      {kid}")
    click.echo(public_path.read_text(), nl=False)
