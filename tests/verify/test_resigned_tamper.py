"""A publisher who edits what a browser shows and re-signs passes every hash check, never the recomputation.

Each case edits one kind of published content that is not a journal, re-signs the
folder with the site's own key (so signature, digests and completeness all pass),
and expects one check to name the file: ``figures`` for what a reader sees as text
or figures (it holds whatever toolchain is installed), ``sources`` for what only a
rebuild with the toolchain that built the site can tell (markup, theme files,
vendored scripts).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from .test_site_tamper import DECISION, _failed, _verify, edit_first_figure

pytestmark = pytest.mark.slow


def _sub(pattern: str, repl: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        new, n = re.subn(pattern, repl, text, count=1)
        assert n == 1, f"pattern {pattern!r} not found"
        return new

    return edit


CASES = {
    # The index's "k/n timed requests" per trial: a published count on a site-level page.
    "index-count": ("index.html", _sub(r"(\d+)/(\d+) timed requests", r"9999/\2 timed requests"), "figures"),
    "how-to-verify": ("how-to-verify.html", _sub(r"evidence-kit verify", "evidence-kit verifx"), "figures"),
    "methodology": ("methodology.html", _sub(r"nearest-rank", "linear"), "figures"),
    "schema": ("schemas/journal-record.schema.json", _sub(r'"type"', '"tipe"'), "figures"),
    # The interactive chart replaces the static SVG in a browser: its data is published figures.
    "chart-spec": (f"{DECISION}/cache-layout/per-run.html", _sub(r"(e2e_p50_s&quot;:)([0-9.]+)", r"\g<1>9.99"), "figures"),
    "alt-text": (f"{DECISION}/cache-layout/per-run.html", _sub(r'alt="', 'alt="Faster by 50%. '), "figures"),
    "script-in-article": (f"{DECISION}/index.html", _sub(r"(<article[^>]*>)", r"\1<script>document.title='x'</script>"), "figures"),
    "hidden-figure": (f"{DECISION}/index.html", _sub(r"<td>(\d+\.\d{3})</td>", r'<td><span style="display:none">\1</span>0.001</td>'), "figures"),
    "chart-script": ("assets/charts.js", _sub(r'"use strict";', '"use strict"; document.body.textContent = "";'), "figures"),
    "site-css": ("assets/extra.css", lambda s: s + "\ntable { display: none }\n", "figures"),
    # The browser tab and bookmarks show the page title.
    "page-title": (f"{DECISION}/index.html", _sub(r"<title>", "<title>Adopted: 40% faster. "), "figures"),
    # The 404 page shows no figure but its own 404 and the page titles' figures.
    "404-figure": ("404.html", _sub(r"</article>", "<p>Adopted: 40% faster</p></article>"), "figures"),
    # Navigation, header and footer are outside the article: no figure there but those of titles and the page.
    "nav-text": (f"{DECISION}/index.html", _sub(r'(<span class="md-ellipsis">\s*)Methodology', r"\g<1>Adopted: 40% faster"), "figures"),
    # Search results show the index's text: a figure there that the page does not carry is caught.
    "search-index": ("search/search_index.json", _sub(r"(\d+)/(\d+) timed requests", r"9999/\2 timed requests"), "figures"),
    # An element the theme never writes outside the article: the markup registry, with any toolchain.
    "footer-paragraph": (f"{DECISION}/index.html", _sub(r"</footer>", "<p>Verified by an independent auditor</p></footer>"), "figures"),
    # Words added to the article between its blocks: the article is the generated blocks, one for one.
    "words-between-paragraphs": (f"{DECISION}/index.html", _sub(r"</article>", "<p>Adopted anyway.</p></article>"), "figures"),
    # Words without a figure outside the article, in the theme's own elements, the theme's own markup and
    # scripts: only a rebuild from the evidence can tell.
    "footer-text": (f"{DECISION}/index.html", _sub(r'(<div class="md-copyright">)', r"\1Verified by an independent auditor"), "sources"),
    "head-script": (f"{DECISION}/index.html", _sub(r"</head>", "<script>document.title='x'</script></head>"), "sources"),
    "404-words": ("404.html", _sub(r"</article>", "<p>Adopted anyway.</p></article>"), "sources"),
    # The vendored Vega scripts draw every chart: compared with the ones vl-convert writes, with any toolchain.
    "vega-bundle": ("assets/vega-bundle.js", lambda s: s + "\n;document.title='x';\n", "figures"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_resigned_edit_caught(run_cli, site: Path, keypair, case: str) -> None:
    from ..resign import resign

    rel, edit, check = CASES[case]
    path = site / rel
    path.write_text(edit(path.read_text()))
    resign(site, keypair[0])
    result = _verify(run_cli, site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {check}, result.out
    assert any(rel in line for line in failed[check]), result.out


def test_external_url_in_a_page_caught(run_cli, site: Path, keypair) -> None:
    from ..resign import resign

    page = site / DECISION / "index.html"
    html = page.read_text()
    page.write_text(html.replace("</head>", '<link rel="stylesheet" href="https://cdn.example.com/x.css"></head>', 1))
    resign(site, keypair[0])
    failed = _failed(_verify(run_cli, site, "--key", keypair[1]))
    assert any("index.html" in line and "https://cdn.example.com/x.css" in line for line in failed.get("figures", [])), failed


def test_deleted_analysis_does_not_switch_the_page_comparison_off(run_cli, site: Path, keypair) -> None:
    """Pages are compared because the decision's evidence is there, not because analysis.json is."""
    from ..resign import resign

    (site / DECISION / "analysis.json").unlink()
    figure = edit_first_figure(site / DECISION / "index.html")
    resign(site, keypair[0])
    failed = _failed(_verify(run_cli, site, "--key", keypair[1]))
    assert set(failed) == {"figures"}, failed
    assert any("analysis.json" in line and "missing" in line for line in failed["figures"])
    assert any(f"published 0.001, recomputed {figure}" in line for line in failed["figures"])


def test_page_nothing_generates_is_caught(run_cli, site: Path, keypair) -> None:
    from ..resign import resign

    (site / DECISION / "addendum.html").write_text("<html><body><article><p>50% faster</p></article></body></html>")
    resign(site, keypair[0])
    failed = _failed(_verify(run_cli, site, "--key", keypair[1]))
    assert set(failed) == {"figures"}, failed
    assert any("addendum.html" in line and "not generated from the evidence" in line for line in failed["figures"])


def test_theme_script_edit_caught(run_cli, site: Path, keypair) -> None:
    """Material's own scripts run on every page: they must be the bytes of the theme that built the site."""
    from ..resign import resign

    bundle = sorted((site / "assets" / "javascripts").glob("bundle.*.min.js"))[0]
    bundle.write_text(bundle.read_text() + "\n;document.title = 'x';\n")
    resign(site, keypair[0])
    failed = _failed(_verify(run_cli, site, "--key", keypair[1]))
    assert set(failed) == {"sources"}, failed
    assert any(bundle.name in line and "mkdocs-material" in line for line in failed["sources"]), failed
