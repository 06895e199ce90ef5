"""``evidence-kit verify``: the auditor's check of a bundle, a decision folder, a built site or a URL."""

from __future__ import annotations

from pathlib import Path

import click

from ..verify import load_pin, verify_folder
from ..verify.history import load_since, save_state
from ..verify.limits import DEFAULT_DEADLINE_S
from ..verify.run import VERIFY_STEPS
from .verbosity import command_steps


@click.command()
@click.argument("target")
@click.option(
    "--key",
    "key_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The publisher's public key (PEM), obtained by another channel than the folder: requires a valid "
    "signature by it. A key file inside the tree being verified is refused (it proves nothing).",
)
@click.option(
    "--key-id",
    "key_id",
    metavar="HEX",
    default=None,
    help="The publisher's key id (64 hex digits, as keygen and build --sign print it): the folder's "
    "signing.pub is used only if its key id is this one.",
)
@click.option(
    "--allow-unpinned",
    is_flag=True,
    help="Without --key or --key-id, exit 0 when every check passes although the signer is not "
    "authenticated (integrity only; the last line says so).",
)
@click.option(
    "--since",
    "since_text",
    metavar="STATE",
    default=None,
    help="The publication seen last: a state file --save-state wrote, or its digest (sha256:HEX). "
    "A site that does not follow it in its signed history (older, forked or shortened) fails.",
)
@click.option(
    "--save-state",
    "state_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="When verified, write this publication's state (digest, sequence, decisions, signer) to FILE, for the next --since.",
)
@click.option(
    "--deadline",
    "deadline_s",
    metavar="SECONDS",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_DEADLINE_S,
    show_default=True,
    help="By URL: the longest the whole download may take, every file; past it, one line and exit 2 (nothing verified).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (evidence-kit/verify-report/v1).")
def verify(
    target: str,
    key_path: Path | None,
    key_id: str | None,
    allow_unpinned: bool,
    since_text: str | None,
    state_path: Path | None,
    deadline_s: float,
    as_json: bool,
) -> int:
    """Verify TARGET: a trial bundle, a decision folder, a built site folder, or the http(s) URL of a served site.

    Checks, in order, one line each: signature over the DSSE PAE (by the pinned
    key); payloadType and statement type; every file's sha256; no file missing or
    unlisted; no listed path escaping the folder; the journal contract; receipts;
    every published figure recomputed from the journals and found in the pages'
    text, whatever MkDocs and Material are installed; a site rebuilt byte for
    byte with the toolchain its signed statement records (skipped in one line
    naming the versions when another is installed); the publication's place in
    its signed history, with the decisions verified (--since refuses an older,
    forked or shortened site). The last line says what
    was proven and whether the signer is authenticated. Exit 0 verified (and authenticated, or
    --allow-unpinned), 1 a check failed or the signer is not authenticated,
    2 unreadable input.
    """
    is_url = target.startswith(("http://", "https://"))
    pin = load_pin(key_path, key_id, None if is_url else Path(target))
    since = load_since(since_text) if since_text is not None else None
    steps = command_steps("verify", VERIFY_STEPS + is_url, as_json=as_json)
    try:
        if is_url:
            from ..verify.fetch import verify_url  # the HTTP client, imported only to fetch (a tenth of a second)

            report = verify_url(target, pin, allow_unpinned=allow_unpinned, since=since, deadline_s=deadline_s, steps=steps)
        else:
            report = verify_folder(Path(target), pin, allow_unpinned=allow_unpinned, since=since, steps=steps)
    finally:
        steps.close()
    click.echo(report.as_json() if as_json else report.as_text(), nl=False)
    if state_path is not None and report.verified and report.publication is not None and report.publication.history is not None:
        save_state(state_path, report.publication, report.signer)
    return report.exit_code
