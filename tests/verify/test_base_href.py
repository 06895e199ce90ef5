"""A host site's page whose head holds ``<base href="https://evil.example/d/">``: every relative link and image of the
verified article (its chart images among them) then loads from another host, which can draw any figure. The host's
markup around the article is the host's, but it may hold nothing that shows what the comparison does not read;
``<base>`` was not among those, and the page verified. (A built site's pages never allowed it.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from .edited_page import verify_host

pytestmark = pytest.mark.slow


def _with_base(page: Path) -> None:
    html = page.read_text("utf-8")
    assert '<meta charset="utf-8">' in html
    page.write_text(html.replace('<meta charset="utf-8">', '<meta charset="utf-8"><base href="https://evil.example/d/">', 1), "utf-8")


def test_a_host_page_that_moves_its_articles_links_off_the_site_fails(run_cli, host_master: Path, tmp_path: Path, keypair) -> None:
    result, page = verify_host(run_cli, host_master, tmp_path, keypair, _with_base)
    assert result.code == 1 and f"{page}: markup outside the article: published <base>" in result.out, result.out
