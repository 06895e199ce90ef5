"""verify by URL gives the whole download a deadline: a server that answers every read in time, a byte at a time,
cannot hold the verifier for ever (each file's size limit bounds the bytes, not the time). One line, exit 2."""

from __future__ import annotations

import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import httpx
import pytest

from evidence_kit.errors import BadInput
from evidence_kit.verify.fetch import Deadline, fetch_site

from ..served_folder import served_folder
from .test_http_bad_bytes import PAGE

pytestmark = pytest.mark.slow


class _Dripping(SimpleHTTPRequestHandler):
    """Serves the folder, but ``drip`` a byte every 50 ms (each read well inside any per-read timeout)."""

    drip = ""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        rel = self.path.lstrip("/")
        if rel != self.drip:
            super().do_GET()
            return
        body = (Path(self.directory) / rel).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the verifier gave up: what the test wants


@pytest.fixture
def dripping(site: Path) -> Iterator[str]:
    with served_folder(site, type("Handler", (_Dripping,), {"drip": PAGE})) as url:
        yield url


def test_a_server_dripping_a_listed_file_is_cut_off_at_the_deadline(run_cli, dripping: str, keypair) -> None:
    result = run_cli("verify", dripping, "--key", keypair[1], "--deadline", "1.5")
    assert result.code == 2 and result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    assert result.err.startswith(f"evidence-kit: {dripping}{PAGE}: the download passed its deadline of 1.5 s (--deadline) with "), result.err
    assert result.err.endswith(" file(s) fetched; nothing was verified\n") and result.out == ""


def test_no_request_is_made_past_the_deadline(site: Path, tmp_path: Path) -> None:
    """The deadline is the clock's, not the server's: a clock already past it stops before the first request."""
    ticks = iter([0.0, 10.0])
    requested: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requested.append(str(request.url))
        return httpx.Response(200, content=(site / "manifest.json").read_bytes())

    with httpx.Client(transport=httpx.MockTransport(answer)) as client, pytest.raises(BadInput) as caught:
        fetch_site("http://site.test/", tmp_path / "copy", client=client, deadline=Deadline(5.0, clock=lambda: next(ticks)))
    assert requested == [] and "passed its deadline of 5 s" in caught.value.message


def test_a_zero_deadline_is_refused(run_cli, site: Path) -> None:
    result = run_cli("verify", "http://127.0.0.1:9/", "--deadline", "0")
    assert result.code == 2 and "--deadline" in result.err
