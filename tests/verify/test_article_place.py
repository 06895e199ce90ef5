"""The article sits where Material puts it, inside nothing that hides it. Around the article a built site's
classes were not restricted, so a re-signed page (another toolchain recorded, no rebuild) could wrap the genuine
article in ``<div class="md-toggle">`` (Material: ``display: none``) and show its own ``Decision: promote`` box
beside it, figure-free, and verify said verified. Every element around the article may carry only the layout
classes and attributes Material writes there (:data:`evidence_kit.render.markup.ARTICLE_PLACE`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain
from evidence_kit.verify.page_text import markup_mismatches, read_page

from ..resign import resign
from .test_site_tamper import DECISION, _failed

MATERIAL = (
    '<html class="no-js" lang="en"><body dir="ltr"><div class="md-container" data-md-component="container">'
    '<main class="md-main" data-md-component="main"><div class="md-main__inner md-grid">'
    '<div class="md-content" data-md-component="content">{}</div></div></main></div></body></html>'
)
ARTICLE = '<article class="md-content__inner md-typeset"><h1>Verdict</h1><p>No promotion.</p></article>'


def test_materials_own_place_passes() -> None:
    assert markup_mismatches(read_page(MATERIAL.format(ARTICLE))) == []


@pytest.mark.parametrize(
    "wrapper",
    [
        '<div class="md-toggle">{}</div>',
        '<div class="md-dialog">{}</div>',
        '<span class="md-option">{}</span>',
        '<div data-md-state="hidden">{}</div>',
    ],
)
def test_an_article_wrapped_in_anything_else_fails(wrapper: str) -> None:
    found = markup_mismatches(read_page(MATERIAL.format(wrapper.format(ARTICLE))))
    assert any(where == "markup around the article" for where, _, _ in found), found


def test_a_host_page_is_not_held_to_materials_place() -> None:
    host = f'<html><body><div class="wy-nav-content">{ARTICLE}</div></body></html>'
    assert markup_mismatches(read_page(host), host=True) == []


@pytest.mark.slow  # the session builds a real site once
def test_a_resigned_page_hiding_its_article_fails(run_cli, site: Path, keypair) -> None:
    page = site / DECISION / "index.html"
    text = page.read_text()
    start, end = text.index("<article"), text.index("</article>") + len("</article>")
    fake = '<div class="md-typeset"><span>Decision: promote the candidate; every guardrail held.</span></div>'
    page.write_text(text[:start] + '<div class="md-toggle">' + text[start:end] + "</div>" + fake + text[end:])
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "9.0.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert any("index.html: markup around the article" in line and "md-toggle" in line for line in failed["figures"]), result.out
