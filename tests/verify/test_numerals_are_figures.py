"""A figure is any token holding a numeral, not only one written in decimal digits: a re-signed page (another
toolchain recorded, so no rebuild backs it) that adds ``Candidate ⁴⁰% faster`` between blocks, or a circled,
Roman or CJK numeral, shows a reader a number the evidence never gave, and fails ``figures`` like ``40%``."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain
from evidence_kit.verify.page_text import is_figure, page_mismatches, read_page

from ..resign import resign
from .test_site_tamper import DECISION, _failed

EXPECTED = "<h1>Verdict</h1><p>Adopt layout B: 12% faster.</p>"
NUMERALS = ["⁴⁰", "①", "Ⅳ", "四十", "x2", "½", "٤٠"]


def _page(article: str) -> str:
    return f'<html dir="ltr"><body><article class="md-content__inner md-typeset">{article}</article></body></html>'


@pytest.mark.parametrize("numeral", NUMERALS)
def test_a_numeral_in_any_script_is_a_figure(numeral: str) -> None:
    assert is_figure(numeral)


@pytest.mark.parametrize("word", ["Adopt", "layout", "B", "no-promotion", "wins"])
def test_words_without_a_numeral_are_not_figures(word: str) -> None:
    assert not is_figure(word)


@pytest.mark.parametrize("numeral", NUMERALS)
def test_a_numeral_added_between_blocks_fails(numeral: str) -> None:
    published = read_page(_page(f"<p>Candidate {numeral}% faster: promote.</p>" + EXPECTED))
    assert page_mismatches(published, read_page(EXPECTED))


@pytest.mark.slow  # the session builds a real site once
def test_a_resigned_page_adding_superscript_figures_fails(run_cli, site: Path, keypair) -> None:
    page = site / DECISION / "index.html"
    text = page.read_text()
    head = text.index("</h1>") + len("</h1>")
    page.write_text(text[:head] + "<p>Candidate ⁴⁰% faster in every group (① of ① trials won).</p>" + text[head:])
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "9.0.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert any("⁴⁰" in line for line in failed["figures"]), result.out
