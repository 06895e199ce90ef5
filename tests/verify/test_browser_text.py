"""The text verify checks is the text a reader sees: every page of a built site, laid out by Debian's
Chromium (Playwright) over real HTTP on 127.0.0.1, shows in its article exactly the words and figures that
verify's reader (html5lib, as browsers parse) takes from the page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

from evidence_kit.verify.page_text import TOKEN, read_page

from ..publish.browser import CHROMIUM, FLAGS
from ..served_folder import served_folder

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/setup --browser installs it)"),
]
# Text a page carries in attributes (an image's alt, an ARIA label, a tooltip): verify reads it as a block,
# a browser shows it only on demand, so it is left out of the comparison of laid-out text.
SHOWN_ATTRIBUTES = re.compile(r'\s(?:alt|aria-label|title)="[^"]*"')


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass


@pytest.fixture(scope="module")
def served(site_master: Path) -> Iterator[str]:
    with served_folder(site_master / "public", _Quiet) as url:
        yield url


def test_every_articles_laid_out_text_is_the_checked_text(site_master: Path, served: str, tmp_path: Path) -> None:
    """Scripts off: what the page's HTML lays out (the charts a script draws are checked by their data)."""
    from playwright.sync_api import sync_playwright

    public = site_master / "public"
    pages = sorted(p.relative_to(public).as_posix() for p in public.rglob("*.html") if "<article" in p.read_text("utf-8"))
    assert len(pages) > 10
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=str(CHROMIUM), headless=True, args=FLAGS, java_script_enabled=False
        )
        try:
            browser_page = context.new_page()
            for rel in pages:
                browser_page.goto(served + rel)
                shown = TOKEN.findall(browser_page.locator("article").first.inner_text())
                checked = read_page(SHOWN_ATTRIBUTES.sub("", (public / rel).read_text("utf-8"))).tokens()
                assert shown == checked, (rel, [t for t in shown if t not in checked][:10], [t for t in checked if t not in shown][:10])
        finally:
            context.close()
