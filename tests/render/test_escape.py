"""Untrusted text renders as the text it is, through the same Markdown extensions the site uses."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.render.article import article_html
from evidence_kit.render.escape import html_text, md_cell, md_prose, md_text
from tests.conftest import REPO

# The repository's generated mkdocs.yml (kept fresh by tests/publish/test_repository_site.py):
# the extensions every site renders its pages with.
CONFIG = (REPO / "mkdocs.yml").read_bytes()
HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "**bold** _em_ `code` [link](https://evil.example/x) ![img](http://evil.example/p.png)",
    "# heading\n\n- item\n> quote\n1. one",
    "{: onclick=alert(1) } | a | b |",
    "&lt;script&gt; &amp; \\* \\",
    "    indented code",
    "x" * 5000,
    "---",
    "  ***  ",
    "~~~\n\n<b>fenced</b>\n\n~~~",
    "--- front\n\nmatter ---",
]


def _text_of(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def _render(text: str) -> str:
    return article_html(text.encode(), CONFIG)


def test_hostile_strings_render_as_text() -> None:
    for value in HOSTILE:
        rendered = _render(md_prose(value))
        assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered, value
        assert "<strong>" not in rendered and "<code>" not in rendered and "<h1" not in rendered, value
        assert "<ul>" not in rendered and "<ol>" not in rendered and "<blockquote>" not in rendered, value
        assert "<hr" not in rendered and "<pre>" not in rendered, value
        expected = "\n".join(" ".join(p.split()) for p in re.split(r"\n\s*\n", value) if p.strip())
        assert _text_of(rendered).strip() == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=80))
def test_any_line_renders_as_itself(value: str) -> None:
    rendered = _render(md_text(value))
    tags = set(re.findall(r"</?([a-z0-9]+)", rendered))
    assert tags <= {"p"}, (value, rendered)
    assert _text_of(rendered).strip() == " ".join(value.split())


def test_table_cell_cannot_split_a_row() -> None:
    rendered = _render("| a | b |\n|---|---|\n| " + md_cell("x | y") + " | z |")
    assert rendered.count("<td>") == 2 and "x | y" in html.unescape(rendered)


def test_html_text_for_titles() -> None:
    assert html_text("<b>\"x\"</b> & 'y'") == "&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; &#39;y&#39;"
