"""verify by URL against a hostile server (a real HTTP server on 127.0.0.1): every body is read no further
than the size the manifest lists for it, before and after decompression, in one line, exit 2."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

from ..served_folder import served_folder

pytestmark = pytest.mark.slow

PAGE = "decisions/2026-11-01-reference-reconstruction/analysis.json"
BOMB_MIB = 512


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """512 MiB of zeros, gzipped: about half a megabyte on the wire."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    return b"".join([*(packer.compress(zeros) for _ in range(BOMB_MIB)), packer.flush()])


class _Hostile(SimpleHTTPRequestHandler):
    """Serves the folder, but ``replies[path]`` as given (headers and body), and gzips every other file
    when ``gzip_all`` is set (an honest server that compresses)."""

    replies: dict[str, tuple[dict[str, str], bytes]] = {}
    gzip_all = False

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        rel = self.path.lstrip("/")
        local = Path(self.directory) / rel
        if rel in self.replies or (self.gzip_all and local.is_file()):
            headers, body = self.replies.get(rel) or ({"Content-Encoding": "gzip"}, gzip.compress(local.read_bytes(), mtime=0))
            self.send_response(200)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the verifier stopped reading: what the test wants
            return
        super().do_GET()


@pytest.fixture
def hostile(site: Path) -> Iterator[tuple[str, Path, type[_Hostile]]]:
    handler = type("Handler", (_Hostile,), {"replies": {}, "gzip_all": False})
    with served_folder(site, handler) as url:
        yield url, site, handler


def _listed_size(site: Path, rel: str) -> int:
    return next(e["size"] for e in json.loads((site / "manifest.json").read_bytes())["files"] if e["path"] == rel)


# Runs the CLI in a child and writes its peak resident memory (KiB) to the file argv[1] names: VmHWM, the
# high-water mark of its own address space (ru_maxrss would count the forking test process too).
_MEASURED = """
import re, sys
from evidence_kit.cli import main
try:
    code = main(sys.argv[2:])
finally:
    status = open("/proc/self/status").read()
    open(sys.argv[1], "w").write(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1))
sys.exit(code)
"""


def _verify_child(tmp_path: Path, *args: str) -> tuple[int, str, int]:
    """``(exit code, stderr, peak resident MiB)`` of ``evidence-kit verify ARGS`` in a child process."""
    peak = tmp_path / "peak-kib"
    proc = subprocess.run([sys.executable, "-c", _MEASURED, str(peak), "verify", *args], capture_output=True, timeout=600)
    return proc.returncode, proc.stderr.decode(), int(peak.read_text()) // 1024


def test_a_gzip_bomb_in_place_of_a_listed_file_is_cut_off_at_its_listed_size(hostile, bomb: bytes, keypair, tmp_path: Path) -> None:
    url, site, handler = hostile
    handler.replies[PAGE] = ({"Content-Encoding": "gzip", "Content-Type": "application/json"}, bomb)
    size = _listed_size(site, PAGE)
    code, err, peak_mib = _verify_child(tmp_path, url, "--key", str(keypair[1]))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err == f"evidence-kit: {url}{PAGE}: served more than the {size} bytes the manifest lists for it once decompressed; stopped reading\n"
    assert peak_mib < BOMB_MIB // 2, f"the verifier held {peak_mib} MiB"  # it never decompressed the bomb


def test_a_body_longer_than_listed_is_cut_off(run_cli, hostile) -> None:
    url, site, handler = hostile
    size = _listed_size(site, PAGE)
    handler.replies[PAGE] = ({"Content-Type": "application/json"}, (site / PAGE).read_bytes() + b" " * 4096)
    result = run_cli("verify", url)
    assert result.code == 2 and result.err.count("\n") == 1
    assert result.err == f"evidence-kit: {url}{PAGE}: served more than the {size} bytes the manifest lists for it; stopped reading\n"


def test_a_served_manifest_is_read_no_further_than_its_bound(run_cli, hostile, bomb: bytes) -> None:
    url, _, handler = hostile
    handler.replies["manifest.json"] = ({"Content-Encoding": "gzip"}, bomb)
    result = run_cli("verify", url)
    assert result.code == 2 and result.err.count("\n") == 1
    assert f"{url}manifest.json: served more than the {64 << 20} bytes verify reads of a file the manifest does not list" in result.err


def test_a_compressed_body_that_does_not_decompress_is_one_line(run_cli, hostile) -> None:
    url, _, handler = hostile
    handler.replies[PAGE] = ({"Content-Encoding": "gzip"}, b"\x1f\x8b not gzip at all")
    result = run_cli("verify", url)
    assert result.code == 2 and result.err.count("\n") == 1
    assert f"{url}{PAGE}: served a compressed body that does not decompress" in result.err


def test_an_unknown_encoding_is_refused(run_cli, hostile) -> None:
    url, site, handler = hostile
    handler.replies[PAGE] = ({"Content-Encoding": "br"}, (site / PAGE).read_bytes())
    result = run_cli("verify", url)
    assert result.code == 2 and f"{url}{PAGE}: served with Content-Encoding 'br', which verify does not read" in result.err


def test_an_honest_server_that_gzips_every_file_verifies(run_cli, hostile, keypair) -> None:
    url, _, handler = hostile
    handler.gzip_all = True
    result = run_cli("verify", url, "--key", keypair[1])
    assert result.code == 0, result.out + result.err


def test_a_manifest_entry_without_a_size_is_bad_input(run_cli, hostile) -> None:
    url, site, _ = hostile
    manifest = json.loads((site / "manifest.json").read_bytes())
    manifest["files"][0]["size"] = "10000000000"
    (site / "manifest.json").write_text(json.dumps(manifest))
    result = run_cli("verify", url)
    assert result.code == 2 and result.err.count("\n") == 1
    assert "has no size in bytes (a whole number), which bounds what is fetched" in result.err
