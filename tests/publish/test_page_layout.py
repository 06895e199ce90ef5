"""The demo's built site, laid out in Chromium at a laptop's and a phone's width, judged by its elements'
bounding boxes: the decision's outcome is the first thing of the article, no word breaks across lines, a
table fits its column or scrolls whole (at 1280 px every table of the decision page fits, and no cell
runs past five lines), and the interval charts' threshold words never overlap anything and print at
the size of the page's small print.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .browser import BROKEN_WORDS, CHART_LABELS, CHROMIUM, TABLES, WIDTHS, chromium, overlaps, visit, wait_for_charts
from .conftest import DEMO, serving

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/setup --browser installs it)"),
]
DECISION = f"decisions/{DEMO.name}/index.html"
PAGES = ["index.html", DECISION, f"decisions/{DEMO.name}/cache-layout/summary.html", "how-to-verify.html", "methodology.html"]
THRESHOLD_WORDS = ["10% faster", "no change", "10% slower"]


@pytest.fixture(scope="module")
def served(demo_site) -> Iterator[str]:
    with serving(demo_site[0]) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.mark.parametrize("width", WIDTHS)
def test_the_outcome_is_the_first_thing_of_the_decision_page(browser, served: str, width: int) -> None:
    page, errors, remote = visit(browser, served + DECISION, width)
    first = page.evaluate(
        "Array.from(document.querySelector('article').children).filter(e => e.offsetParent !== null).map(e => e.tagName + '.' + e.className)"
    )
    assert first[:3] == ["H1.", "DIV.admonition failure", "DIV.admonition note"], first
    outcome = page.locator("article > .admonition").first
    assert outcome.locator(".admonition-title").inner_text() == "Retain the original configuration"
    assert "2/4 groups won but guardrails breached at" in outcome.inner_text()
    title, note = (page.locator(f"article > .admonition >> nth={i} >> .admonition-title") for i in (0, 1))
    size = "el => parseFloat(getComputedStyle(el).fontSize)"
    assert title.evaluate(size) > note.evaluate(size)  # the outcome is louder than the simulated-evidence note
    assert outcome.bounding_box()["y"] < page.viewport_size["height"]  # on the first screen
    assert errors == [] and remote == []
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_no_word_breaks_and_every_table_fits_or_scrolls_whole(browser, served: str, path: str, width: int) -> None:
    page, errors, remote = visit(browser, served + path, width)
    wait_for_charts(page)
    assert page.evaluate(BROKEN_WORDS) == []
    viewport = page.viewport_size["width"]
    for table in page.evaluate(TABLES):
        assert not table["clipped"], table  # the table never hides its own columns; its container scrolls instead
        fits = table["width"] <= table["container"] + 1
        assert fits or (table["scrolls"] and table["right"] <= viewport + 1), table
        if width == 1280 and path == DECISION:
            assert fits, table  # on a laptop no table of the decision page hides its last columns
            assert table["lines"] < 5.5, table  # and no cell runs to six lines
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport  # the page itself never scrolls sideways
    assert errors == [] and remote == []
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_interval_charts_threshold_words_never_overlap_and_read_at_normal_size(browser, served: str, width: int) -> None:
    page, errors, remote = visit(browser, served + DECISION, width)
    wait_for_charts(page)
    charts = page.evaluate(CHART_LABELS, THRESHOLD_WORDS)
    assert len(charts) == 2  # one interval chart per trial
    for chart in charts:
        labels = chart["labels"]
        assert sorted(label["text"] for label in labels) == sorted(THRESHOLD_WORDS)
        for i, label in enumerate(labels):
            assert label["bottom"] - label["top"] >= 11, label  # drawn at its size, not shrunk to fit the column
            assert not any(overlaps(label, other) for other in labels[i + 1 :] + chart["others"]), (label, chart)
    assert errors == [] and remote == []
    page.close()


def test_without_scripts_the_static_chart_keeps_its_size_and_scrolls(browser, served: str) -> None:
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.route("**/*.js", lambda route: route.abort())  # a reader whose browser runs no script sees the static SVG
    page.goto(served + DECISION)
    image = page.locator("img.ek-chart").first
    image.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    width, natural = image.evaluate("img => [img.getBoundingClientRect().width, img.naturalWidth]")
    assert width == natural > 390  # drawn at its own size, its words at theirs
    overflow, shown, whole = image.evaluate(
        "img => [getComputedStyle(img.parentElement).overflowX, img.parentElement.clientWidth, img.parentElement.scrollWidth]"
    )
    assert overflow == "auto" and shown < whole  # its paragraph scrolls instead
    page.close()


def test_the_screenshots_in_the_docs_are_of_both_widths() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    text = (docs / "site.md").read_text()
    for name in ("decision", "chart", "how-to-verify"):
        for width in WIDTHS:
            png = docs / "images" / f"site-{name}-{width}.png"
            assert f"(images/{png.name})" in text, png.name
            header = png.read_bytes()[:24]
            shot = int.from_bytes(header[16:20], "big")
            assert header[:8] == b"\x89PNG\r\n\x1a\n" and (shot == width if name != "chart" else 0 < shot <= width), png  # a chart: its box
