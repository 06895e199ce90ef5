"""``evidence-kit verify``: the auditor's check of a bundle, a decision folder, a built site or a URL."""

from __future__ import annotations

from pathlib import Path

import click

from ..verify.keys import load_public_key


@click.command()
@click.argument("target")
@click.option("--key", "key_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The publisher's public key (PEM). Requires a valid signature by this key; without it the key "
              "the folder itself names (signing.pub) is used and only integrity, not authorship, is shown.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (evidence-kit/verify-report/v1).")
def verify(target: str, key_path: Path | None, as_json: bool) -> int:
    """Verify TARGET: a trial bundle, a decision folder, a built site folder, or the http(s) URL of a served site.

    Checks, in order, one line each: signature over the DSSE PAE; payloadType and
    statement type; every file's sha256; no file missing or unlisted; no listed
    path escaping the folder; the journal contract; receipts; every published
    figure recomputed from the journals. Exit 0 verified, 1 a check failed (every
    failure listed with what and where), 2 unreadable input.
    """
    keys = [load_public_key(key_path)] if key_path else []
    if target.startswith(("http://", "https://")):
        from ..verify.fetch import verify_url

        report = verify_url(target, keys)
    else:
        from ..verify.run import verify_folder

        report = verify_folder(Path(target), keys)
    click.echo(report.as_json() if as_json else report.as_text(), nl=False)
    return report.exit_code
