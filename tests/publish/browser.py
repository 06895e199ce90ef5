"""Debian's Chromium driven by Playwright, and what a page's layout measures in it.

Shared by the browser tests and ``scripts/screenshots``: one way to start the browser (offline flags,
every host but 127.0.0.1 unresolvable), to open a page and wait for its charts, and to measure a page
by its elements' bounding boxes (words broken across lines, tables wider than their column, chart
labels that overlap or print small).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
WIDTHS = (1280, 390)  # a laptop and a phone
HEIGHTS = {1280: 900, 390: 844}


@contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """A persistent Chromium context (headless, offline flags) in ``profile``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(profile), executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            yield context
        finally:
            context.close()


def visit(browser: Any, url: str, width: int = 1280) -> tuple[Any, list[str], list[str]]:
    """Open ``url`` at ``width`` px; return the page, console errors, and every request to another origin."""
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": HEIGHTS.get(width, 900)})
    errors: list[str] = []
    remote: list[str] = []
    origin = re.match(r"http://127\.0\.0\.1:\d+/", url).group(0)  # type: ignore[union-attr]
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("request", lambda r: remote.append(r.url) if not r.url.startswith((origin, "data:")) else None)
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    response = page.goto(url)
    assert response is not None and response.status == 200
    page.wait_for_load_state("networkidle")
    return page, errors, remote


def wait_for_charts(page: Any) -> None:
    """Until every interactive chart of the page has drawn its SVG."""
    page.wait_for_function(
        "Array.from(document.querySelectorAll('div.ek-vega')).every(el => el.dataset.ekDrawn === 'done' && el.querySelector('svg.marks'))"
    )


# Each word of the article's text (split at spaces, and after a hyphen, dash or slash, where a line may
# break) whose characters lie on more than one line: a word broken mid-word.
BROKEN_WORDS = r"""() => {
  const out = [];
  const walker = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('pre, svg, script, style')) continue;
    const re = /[^\s\-\u2010-\u2014\/]+[\-\u2010-\u2014\/]?/g;
    let m;
    while ((m = re.exec(node.data)) !== null) {
      if (m[0].length < 2) continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.bottom)));
      if (tops.size > 1) out.push(m[0]);
    }
  }
  return out;
}"""

# Every table of the article: its first header, its width and its scroll container's, whether that
# container scrolls, how far the container reaches, and its tallest cell in lines of text.
TABLES = r"""() => Array.from(document.querySelectorAll('article table')).map(t => {
  const wrap = t.closest('.md-typeset__scrollwrap') || t.parentElement;
  const lines = Array.from(t.querySelectorAll('td, th')).map(c => {
    const s = getComputedStyle(c);
    const inner = c.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
    return inner / parseFloat(s.lineHeight);
  });
  return {
    header: (t.querySelector('th') || {}).innerText || '',
    width: t.scrollWidth,
    clipped: t.scrollWidth > t.clientWidth + 1,
    container: wrap.clientWidth,
    scrolls: ['auto', 'scroll'].includes(getComputedStyle(wrap).overflowX),
    right: wrap.getBoundingClientRect().right,
    lines: Math.max(...lines),
  };
})"""

# The threshold words of every interactive interval chart, with the box of every other text of that chart.
CHART_LABELS = r"""(words) => Array.from(document.querySelectorAll('div.ek-vega svg.marks')).map(svg => {
  const texts = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim());
  const box = t => { const r = t.getBoundingClientRect(); return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  return {
    labels: texts.filter(t => words.includes(t.textContent)).map(box),
    others: texts.filter(t => !words.includes(t.textContent)).map(box),
  };
}).filter(chart => chart.labels.length)"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share any area."""
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def shoot(page: Any, path: Path) -> None:
    """A screenshot of what the reader sees first: the viewport, at the top of the page."""
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=False)
