"""A page that declares another encoding than the UTF-8 verify reads it in: the browser decodes its bytes otherwise.

``<meta charset="iso-2022-jp">``: a browser then reads ``ESC $ B`` as a switch to two-byte characters and
``ESC ( B`` as the switch back. Hidden in a heading's ``id`` (whose value nothing compares) and in a comment, the
two let a browser show the genuine heading as characters inside the ``id`` and show, as the heading, text that
verify reads as a comment: Chromium showed ``Cache-layout and DFlash scouts: promote DFlash2 K3`` on a page that
verified. Every page must declare UTF-8, the encoding build writes and verify reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .edited_page import verify_built, verify_host

pytestmark = pytest.mark.slow

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
    result, page = verify_built(run_cli, site, keypair, _switch_encoding)
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out
    assert f"{page}: markup outside the article: published <meta charset=iso-2022-jp>" in result.out, result.out


def test_a_host_page_in_another_encoding_fails(run_cli, host_master: Path, tmp_path: Path, keypair) -> None:
    result, page = verify_host(run_cli, host_master, tmp_path, keypair, _switch_encoding)
    assert result.code == 1 and f"{page}: markup outside the article: published <meta charset=iso-2022-jp>" in result.out, result.out


def _content_type(page: Path) -> None:
    meta = '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
    page.write_text(page.read_text("utf-8").replace('<meta charset="utf-8">', meta, 1), "utf-8")


def test_a_content_type_declaring_another_encoding_fails(run_cli, site: Path, keypair) -> None:
    result, page = verify_built(run_cli, site, keypair, _content_type)
    assert result.code == 1 and f"{page}: markup outside the article: published <meta charset=windows-1252>" in result.out, result.out
