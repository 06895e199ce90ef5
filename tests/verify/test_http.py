"""verify by URL: a real HTTP server on 127.0.0.1 serving a copy of the signed site."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evidence_kit.attest.keys import key_id, load_public_key

pytestmark = pytest.mark.slow


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass


@pytest.fixture
def served(site: Path) -> Iterator[tuple[str, Path]]:
    """(base URL, folder) of the site copy, served until the test ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", site
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_verify_served_site_by_url(run_cli, served, keypair) -> None:
    url, _ = served
    result = run_cli("verify", url, "--key", keypair[1])
    assert result.code == 0, result.out
    kid = key_id(load_public_key(keypair[1]))
    assert result.out.splitlines()[-1].startswith(
        f"verified: {url.rstrip('/')}: authenticated: signed by the publisher's key (key id {kid}, pinned with --key); "
    )


def test_tampered_served_page_names_the_url(run_cli, served) -> None:
    url, folder = served
    page = folder / "decisions" / "2026-11-01-reference-reconstruction" / "index.html"
    page.write_text(page.read_text().replace("1.735", "1.705"))
    result = run_cli("verify", url)
    assert result.code == 1
    target = f"{url}decisions/2026-11-01-reference-reconstruction/index.html"
    assert f"{target}: after" in result.out and "published 1.705, recomputed 1.735" in result.out


def test_file_missing_on_the_server(run_cli, served) -> None:
    url, folder = served
    (folder / "decisions" / "2026-11-01-reference-reconstruction" / "analysis.json").unlink()
    result = run_cli("verify", url)
    assert result.code == 1
    assert f"{url}decisions/2026-11-01-reference-reconstruction/analysis.json: listed in" in result.out


def test_escaping_entry_is_never_requested(run_cli, served) -> None:
    import json

    url, folder = served
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"].append({"path": "../../etc/passwd", "size": 1, "sha256": "0" * 64})
    (folder / "manifest.json").write_text(json.dumps(manifest))
    result = run_cli("verify", url)
    assert result.code == 1 and "entry '../../etc/passwd': path escapes the folder" in result.out


def test_url_without_a_site_exits_2(run_cli, served) -> None:
    url, folder = served
    (folder / "manifest.json").unlink()
    result = run_cli("verify", url)
    assert result.code == 2 and "no site manifest here (HTTP 404)" in result.err


def test_unreachable_url_exits_2(run_cli) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run_cli("verify", f"http://127.0.0.1:{port}/")
    assert result.code == 2 and "cannot fetch" in result.err
