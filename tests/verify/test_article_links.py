"""Where an article's images and links point, and how it styles its boxes, is what build writes.

The article's text, its charts' specs and every chart file were compared, but not which file an ``<img>`` shows
nor where a link goes: re-signed with another toolchain recorded (no rebuild backs the pages) or in a host site's
prefix folder, the two trials' chart images swapped (the interactive charts switched off by a class) showed a
reader one trial's chart under the other's heading, an image given a ``data:`` URL a browser reads once it drops
the newline in ``da&#10;ta:`` drew any figure, a link written ``\\\\host/`` or ``java&#9;script:`` left the site
or ran a script, and the decision's red "Retain" box turned green (``admonition success``); each verified.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign

pytestmark = pytest.mark.slow

DECISION = "2026-11-01-reference-reconstruction"
PAGE_REL = f"{DECISION}/index.html"
DATA_SVG = (
    "da&#10;ta:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%22300%22 height=%2220%22%3E"
    "%3Ctext y=%2215%22%3EDFlash promoted: 1.705%3C/text%3E%3C/svg%3E"
)


def _swap_charts(html: str) -> str:
    """The two trials' interval charts swapped, and the interactive charts (which a reader with scripts sees) off."""
    one, two = 'src="cache-layout/intervals.svg"', 'src="dflash/intervals.svg"'
    assert one in html and two in html
    html = html.replace(one, "\0").replace(two, one).replace("\0", two)
    return html.replace('class="ek-vega"', 'class="ek-vega-off"')


EDITS = {
    "chart images swapped": _swap_charts,
    "chart image as a data: URL with a newline in its scheme": lambda html: html.replace(
        'src="cache-layout/intervals.svg"', f'src="{DATA_SVG}"', 1
    ).replace('class="ek-vega"', 'class="ek-vega-off"', 1),
    "link to another host written with backslashes": lambda html: html.replace('href="analysis.json"', 'href="\\\\evil.example/analysis.json"', 1),
    "javascript: link with a tab in its scheme": lambda html: html.replace('href="dossier.html"', 'href="java&#9;script:alert(1)"', 1),
    "link behind a control character": lambda html: html.replace('href="dossier.html"', 'href="\x01javascript:alert(1)"', 1),
    "link to another page of the site": lambda html: html.replace('href="dossier.html"', 'href="hardware.html"', 1),
    "outcome box restyled as a success": lambda html: html.replace('class="admonition failure"', 'class="admonition success"', 1),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_article_pointing_elsewhere_fails_without_a_rebuild(run_cli, site: Path, keypair, edit: str) -> None:
    page = site / "decisions" / PAGE_REL
    before = page.read_text("utf-8")
    after = EDITS[edit](before)
    assert after != before
    page.write_text(after, "utf-8")
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "0.0.1"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out
    assert f"{site}/decisions/{PAGE_REL}: article " in result.out, result.out


def test_a_genuine_host_site_with_directory_urls_verifies(run_cli, host_master: Path, keypair) -> None:
    """MkDocs writes a host's links as ``x/`` and ``../``, relative to where each page is published."""
    result = run_cli("verify", host_master, "--key", keypair[1])
    assert result.code == 0, result.out


def test_chart_images_swapped_in_a_host_site_fail(run_cli, host_master: Path, tmp_path: Path, keypair) -> None:
    prefix = Path(shutil.copytree(host_master, tmp_path / "decisions"))
    page = prefix / PAGE_REL
    page.write_text(_swap_charts(page.read_text("utf-8")), "utf-8")
    resign(prefix, keypair[0])
    result = run_cli("verify", prefix, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out
    assert f"{prefix}/{PAGE_REL}: article " in result.out, result.out


OFF_SITE = {
    "backslashes": "\\\\evil.example/",
    "a tab in the scheme": "ht&#9;tps://evil.example/",
    "a control character before it": "\x01https://evil.example/",
}


@pytest.mark.parametrize("spelling", sorted(OFF_SITE))
def test_a_link_off_the_site_outside_the_article_fails_however_it_is_spelt(run_cli, site: Path, keypair, spelling: str) -> None:
    """The header's and the head's links are the theme's (not compared), but none may leave the offline site: a
    URL is judged as a browser reads it, which drops tabs, newlines and leading controls and reads ``\\`` as ``/``."""
    page = site / "decisions" / PAGE_REL
    html = page.read_text("utf-8").replace('href="../../index.html" title=', f'href="{OFF_SITE[spelling]}" title=', 1)
    html = html.replace('href="../../assets/extra.css"', f'href="{OFF_SITE[spelling]}extra.css"', 1)
    page.write_text(html, "utf-8")
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "0.0.1"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and f"{site}/decisions/{PAGE_REL}: link off the site: published " in result.out, result.out
    assert result.out.count(f"{PAGE_REL}: link off the site") == 2, result.out
