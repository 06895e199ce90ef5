"""A signed site whose pages show a wrong figure or verdict in plain HTML (no CSS, no script),
with a recorded toolchain the auditor does not have installed, so only the pages' text is compared.

Each test re-signs the site (as ``test_toolchain.py`` does: the publisher's key, a recorded
mkdocs-material that differs from the installed one) after an edit a reader sees and the text
comparison does not: every one fails ``figures``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_site_tamper import DECISION, _failed
from .test_toolchain import _resign

pytestmark = pytest.mark.slow

CELL = "<td>48/48</td>"  # the first 'Timed ok / planned' cell of the cache-layout summary table


def _edit(site: Path, old: str, new: str) -> None:
    page = site / DECISION / "cache-layout" / "summary.html"
    html = page.read_text()
    assert old in html
    page.write_text(html.replace(old, new, 1))


def _verify_fails_figures(run_cli, site: Path, keypair) -> None:
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and "figures" in _failed(result), result.out


def test_a_figure_shown_mirrored_by_bdo_fails_figures(run_cli, site: Path, keypair) -> None:
    """``<bdo dir="rtl">48/48</bdo>`` shows '84/84' (and 1.735 would show as 537.1): same text, other figure."""
    _edit(site, CELL, '<td><bdo dir="rtl">48/48</bdo></td>')
    _resign(site, keypair[0])
    _verify_fails_figures(run_cli, site, keypair)


@pytest.mark.parametrize("tag", ["footer", "header", "nav"])
def test_a_wrong_verdict_in_a_footer_inside_the_article_fails_figures(run_cli, site: Path, keypair, tag) -> None:
    """A <footer>/<header>/<nav> inside the <article> is shown to the reader but read neither as the
    article's text nor as chrome: any figure or verdict in it passes."""
    _edit(site, "<p>Timed requests", f"<{tag}><p>Verdict: 3 of 144 requests failed; the candidate is rejected.</p></{tag}><p>Timed requests")
    _resign(site, keypair[0])
    _verify_fails_figures(run_cli, site, keypair)


@pytest.mark.parametrize(
    "hidden",
    [
        "<noscript>48/48</noscript><footer>0/48</footer>",  # noscript: not shown when scripts run (Material needs them)
        "<dialog>48/48</dialog><header>0/48</header>",  # a dialog that is not open is not shown
        "<details><summary><nav>0/48</nav></summary>48/48</details>",  # closed details: only the summary shows
    ],
)
def test_the_true_figure_hidden_without_css_and_a_wrong_one_shown_fails_figures(run_cli, site: Path, keypair, hidden: str) -> None:
    _edit(site, CELL, f"<td>{hidden}</td>")
    _resign(site, keypair[0])
    _verify_fails_figures(run_cli, site, keypair)
