"""A page that sends its reader elsewhere: ``<meta http-equiv="refresh" content="0; url=…">`` in the head loads
another page (off the site, or another decision's) in place of the one verified. Build never writes one, and the
registry allowed ``http-equiv`` on ``meta`` for its harmless values; re-signed with another toolchain recorded, or in
a host site's page, a refresh verified."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .edited_page import verify_built, verify_host

pytestmark = pytest.mark.slow

REFRESH = '<meta http-equiv="Refresh" content="0; url=https://evil.example/promoted.html">'


def _with_refresh(page: Path) -> None:
    html = page.read_text("utf-8")
    assert '<meta charset="utf-8">' in html
    page.write_text(html.replace('<meta charset="utf-8">', '<meta charset="utf-8">' + REFRESH, 1), "utf-8")


def test_a_page_that_refreshes_to_another_fails_without_a_rebuild(run_cli, site: Path, keypair) -> None:
    result, page = verify_built(run_cli, site, keypair, _with_refresh)
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out
    assert f"{page}: markup outside the article: published <meta http-equiv=refresh>" in result.out, result.out


def test_a_host_page_that_refreshes_to_another_fails(run_cli, host_master: Path, tmp_path: Path, keypair) -> None:
    result, page = verify_host(run_cli, host_master, tmp_path, keypair, _with_refresh)
    assert result.code == 1 and f"{page}: markup outside the article: published <meta http-equiv=refresh>" in result.out, result.out
