"""The <article> element's own hidden/style/on* attributes are read before the parser enters the article,
so the marker lands outside it: a host template (main.html, block container) can hide the checked article
(`<article class="md-content__inner md-typeset" hidden>`) and the page still passes the article comparison."""

from __future__ import annotations

import pytest

from evidence_kit.verify.page_text import page_mismatches, read_page

EXPECTED = "<h1>Verdict</h1><p>Adopt layout B: 12% faster.</p>"


@pytest.mark.parametrize("attr", ["hidden", 'style="display:none"', 'onload="x()"', 'dir="rtl"'])
def test_attributes_of_the_article_itself_are_active_content(attr: str) -> None:
    published = read_page(f'<html><body><article class="md-content__inner md-typeset" {attr}>{EXPECTED}</article></body></html>')
    # Expected: a marker mismatch, as for <div hidden> inside the article.
    assert page_mismatches(published, read_page(EXPECTED)), published.segments
