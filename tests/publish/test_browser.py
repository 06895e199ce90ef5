"""The built site in Debian's Chromium over real HTTP on 127.0.0.1, every other host unresolvable."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .browser import CHROMIUM, chromium, visit
from .conftest import DECISION_ID, serving

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/setup --browser installs it)"),
]


@pytest.fixture(scope="module")
def served(built_site: Path) -> Iterator[str]:
    with serving(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


def test_index_lists_the_decision_with_its_badges(browser, served: str) -> None:
    page, errors, remote = visit(browser, served + "index.html")
    row = page.locator("table tr", has_text="reconstructed from the reference page")
    assert row.count() == 1
    assert row.locator(".ek-badge-no-promotion").inner_text() == "no-promotion"
    assert row.locator(".ek-badge-simulated").inner_text() == "simulated"
    assert "cache-layout 144/144 timed requests" in row.inner_text()
    row.get_by_role("link").click()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith(f"decisions/{DECISION_ID}/index.html")
    assert errors == [] and remote == []
    page.close()


def test_result_card_tables_and_charts(browser, served: str) -> None:
    page, errors, remote = visit(browser, served + f"decisions/{DECISION_ID}/index.html")
    assert page.locator(".admonition.note", has_text="Simulated evidence").count() >= 1
    outcome = page.locator("article .admonition").first
    assert outcome.locator(".admonition-title").inner_text() == "Retain the original configuration"
    cards = page.locator("table", has_text="Headline measurement")
    assert cards.count() == 2  # one result card per trial
    for i, slots in enumerate((r"Layout candidate token slots\s+\+38\.60%", r"DFlash2 K3 token slots\s+\u221240\.63%")):
        cells = cards.nth(i).locator("tbody tr").all_inner_texts()
        assert any(re.search(r"Timed requests completed\s+144/144\s", c) for c in cells)
        assert any(re.search(r"Material latency wins\s+0/4 workload groups\s", c) for c in cells)
        assert any(re.search(slots, c) for c in cells)
    e2e = page.locator("table:has(th:text-is('Actual input'))").filter(has_text="Layout candidate").first
    assert re.search(r"~25K\s+4\s+11\.355\s+12\.404\s+11\.494", e2e.inner_text())
    # Static SVGs loaded, and every interactive chart drew an SVG with vega-embed.
    images = page.locator("img.ek-chart")
    assert images.count() == 2
    for i in range(images.count()):
        assert images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0")
    page.wait_for_function("document.querySelectorAll('div.ek-vega[data-ek-drawn=done] svg.marks').length == 2")
    marks = page.locator("div.ek-vega svg.marks").first.locator("path, line, .mark-symbol path")
    assert marks.count() > 10
    assert errors == [] and remote == []
    page.close()


def test_per_run_chart_page(browser, served: str) -> None:
    page, errors, remote = visit(browser, served + f"decisions/{DECISION_ID}/cache-layout/per-run.html")
    page.wait_for_function("document.querySelectorAll('div.ek-vega[data-ek-drawn=done] svg.marks').length == 1")
    assert page.locator("img.ek-chart").evaluate("img => img.naturalWidth > 0")
    assert page.locator("img.ek-chart").get_attribute("alt").startswith("Scatter plot of Cache-layout trial")
    # Once the interactive chart has drawn, the static fallback is hidden: one chart, not two.
    assert page.locator("img.ek-chart").is_hidden()
    rows = page.locator("table", has_text="p50 E2E s").locator("tbody tr")
    assert rows.count() == 36
    assert errors == [] and remote == []
    page.close()
