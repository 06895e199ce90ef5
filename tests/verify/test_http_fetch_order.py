"""verify by URL trusts nothing a server says before the signature: the manifest it serves lists the sizes that
bound each download, so a hostile server's manifest (a file listed at a terabyte, a million files) bounds nothing
unless its signature is checked, with the pinned key, before any listed file is fetched."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evidence_kit.attest.keys import key_id, load_public_key

pytestmark = pytest.mark.slow  # the session builds a real site once

SIGNING_FILES = {"manifest.json", "manifest.dsse.json", "signing.pub"}


class _Recording(SimpleHTTPRequestHandler):
    requested: list[str] = []

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.requested.append(self.path.lstrip("/"))
        super().do_GET()


@pytest.fixture
def served(site: Path) -> Iterator[tuple[str, list[str]]]:
    requested: list[str] = []
    handler = type("Handler", (_Recording,), {"requested": requested})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", requested
    finally:
        server.shutdown()
        server.server_close()


def test_no_listed_file_is_fetched_when_the_signature_is_not_the_pinned_keys(run_cli, served, other_keypair) -> None:
    url, requested = served
    result = run_cli("verify", url, "--key", other_keypair[1])
    assert result.code in (1, 2), result.out
    assert set(requested) <= SIGNING_FILES, sorted(set(requested) - SIGNING_FILES)[:5]
    assert "FAIL signature" in result.out, result.out


@pytest.mark.parametrize("by", ["--key", "--key-id"])
def test_a_site_signed_by_the_pinned_key_is_fetched_whole(run_cli, served, keypair, site: Path, by: str) -> None:
    url, requested = served
    pin = str(keypair[1]) if by == "--key" else key_id(load_public_key(keypair[1]))
    result = run_cli("verify", url, by, pin)
    assert result.code == 0, result.out
    listed = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    assert set(requested) == listed
