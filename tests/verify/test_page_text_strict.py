"""The article comparison: one for one, in a built site as in a host site, and the <article> element's own
attributes read as part of it (the class Material writes is not active content)."""

from __future__ import annotations

from evidence_kit.verify.page_text import page_mismatches, read_page

EXPECTED = "<h1>Verdict</h1><p>Adopt layout B: 12% faster.</p>"


def _page(article: str, attrs: str = 'class="md-content__inner md-typeset"') -> str:
    return f'<html dir="ltr"><body><article {attrs}>{article}</article></body></html>'


def test_materials_article_matches() -> None:
    assert page_mismatches(read_page(_page(EXPECTED)), read_page(EXPECTED)) == []


def test_a_figure_free_sentence_between_blocks_fails() -> None:
    published = read_page(_page("<p>This decision was reversed.</p>" + EXPECTED))
    assert page_mismatches(published, read_page(EXPECTED)) == [("after ''", "This decision was reversed", "(absent)")]


def test_blocks_split_differently_fail() -> None:
    published = read_page(_page("<h1>Verdict</h1><p>Adopt layout B:</p><p>12% faster.</p>"))
    assert page_mismatches(published, read_page(EXPECTED))
