"""A page that declares another encoding than the UTF-8 verify reads it in: the browser decodes its bytes otherwise.

``<meta charset="iso-2022-jp">``: a browser then reads ``ESC $ B`` as a switch to two-byte characters and
``ESC ( B`` as the switch back. Hidden in a heading's ``id`` (whose value nothing compares) and in a comment, the
two let a browser show the genuine heading as characters inside the ``id`` and show, as the heading, text that
verify reads as a comment: Chromium showed ``Cache-layout and DFlash scouts: promote DFlash2 K3`` on a page that
verified. Every page must declare UTF-8, the encoding build writes and verify reads."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign

pytestmark = pytest.mark.slow

DECISION = "2026-11-01-reference-reconstruction"
H1 = re.compile(rb'<h1 id="([^"]*)">(.*?)</h1>', re.S)


def _switch_encoding(page: Path) -> None:
    data = page.read_bytes()
    start = data.index(b"<article")
    h1 = H1.search(data, start)
    assert h1 is not None and b'<meta charset="utf-8">' in data
    shown = b"Cache-layout and DFlash scouts: promote DFlash2 K3"
    edited = b'<h1 id="' + h1[1] + b'\x1b$B">' + h1[2] + b'</h1><!--\x1b(B">' + shown + b"</h1><!-- -->"
    data = data[: h1.start()] + edited + data[h1.end() :]
    page.write_bytes(data.replace(b'<meta charset="utf-8">', b'<meta charset="iso-2022-jp">', 1))


def test_a_page_in_another_encoding_fails_without_a_rebuild(run_cli, site: Path, keypair) -> None:
    _switch_encoding(site / "decisions" / DECISION / "index.html")
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "0.0.1"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out
    assert f"{site}/decisions/{DECISION}/index.html: markup outside the article: published <meta charset=iso-2022-jp>" in result.out, result.out


def test_a_host_page_in_another_encoding_fails(run_cli, host_master: Path, tmp_path: Path, keypair) -> None:
    prefix = Path(shutil.copytree(host_master, tmp_path / "decisions"))
    _switch_encoding(prefix / DECISION / "index.html")
    resign(prefix, keypair[0])
    result = run_cli("verify", prefix, "--key", keypair[1])
    assert result.code == 1 and f"{prefix}/{DECISION}/index.html: markup outside the article: published <meta charset=iso-2022-jp>" in result.out, (
        result.out
    )


def test_a_content_type_declaring_another_encoding_fails(run_cli, site: Path, keypair) -> None:
    page = site / "decisions" / DECISION / "index.html"
    meta = '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
    page.write_text(page.read_text("utf-8").replace('<meta charset="utf-8">', meta, 1), "utf-8")
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "0.0.1"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and "markup outside the article: published <meta charset=windows-1252>" in result.out, result.out
