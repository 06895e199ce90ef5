"""Text is normalised as HTML collapses whitespace (ASCII space, tab, newline, form feed, carriage return) and no
other way: Python's ``str.split`` also splits at U+1680 OGHAM SPACE MARK (drawn as a dash), U+001C-U+001F and
U+0085, which a browser shows as a mark or a box, so a re-signed page turning ``under 30.75`` into
``under\\u168030.75`` (a reader sees ``under-30.75``) compared equal and verify said verified."""

from __future__ import annotations

import pytest

from evidence_kit.verify.page_text import page_mismatches, read_page

EXPECTED = "<h1>Verdict</h1><p>Differences under 30.75 ms are noise.</p>"


def _page(article: str) -> str:
    return f'<html dir="ltr"><body><article class="md-content__inner md-typeset">{article}</article></body></html>'


@pytest.mark.parametrize("char", ["\u1680", "\x1c", "\x1f", "\x85", "\u2028", "\u3000"])
def test_a_character_html_does_not_collapse_is_a_difference(char: str) -> None:
    published = read_page(_page(EXPECTED.replace("under 30.75", f"under{char}30.75")))
    assert page_mismatches(published, read_page(EXPECTED))


@pytest.mark.parametrize("spacing", [" \n\t ", "\r\n", "\f"])
def test_html_whitespace_still_collapses(spacing: str) -> None:
    published = read_page(_page(EXPECTED.replace("under 30.75", f"under{spacing}30.75")))
    assert page_mismatches(published, read_page(EXPECTED)) == []
