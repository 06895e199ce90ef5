"""Screenshots of the demo's built site at a laptop's and a phone's width, for docs/site.md.

Run as ``scripts/screenshots`` (or ``python -m tests.publish.screenshots DOCS_IMAGES``): it builds the
repository's demo decision (evidence/) into a temporary folder, serves it on 127.0.0.1, and writes
``site-decision-<width>.png`` (the decision page's first screen), ``site-chart-<width>.png`` (its first
interval chart) and ``site-how-to-verify-<width>.png`` for each width of :data:`.browser.WIDTHS`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from evidence_kit.publish import build_site

from .browser import WIDTHS, chromium, shoot, visit, wait_for_charts
from .conftest import DEMO, serving


def take(out: Path) -> list[Path]:
    """Build, serve and photograph the demo's site; return the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build_site([DEMO], site)
        with serving(site) as url, chromium(Path(tmp) / "profile") as browser:
            for width in WIDTHS:
                page, errors, _ = visit(browser, f"{url}decisions/{DEMO.name}/index.html", width)
                wait_for_charts(page)
                shoot(page, out / f"site-decision-{width}.png")
                chart = page.locator("div.ek-vega").first
                chart.scroll_into_view_if_needed()
                chart.screenshot(path=str(out / f"site-chart-{width}.png"))
                page.close()
                page, more, _ = visit(browser, f"{url}how-to-verify.html", width)
                shoot(page, out / f"site-how-to-verify-{width}.png")
                page.close()
                assert errors == [] and more == [], errors + more
                written += [out / f"site-{name}-{width}.png" for name in ("decision", "chart", "how-to-verify")]
    return written


if __name__ == "__main__":
    for path in take(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images")):
        print(path)
