"""What a reader sees is what is checked: each trick that showed a reader another verdict than the text verify
compared now fails ``figures``, in a built site with another toolchain recorded (no rebuild backs the pages,
so the figures check is the only guard) and in a MkDocs host site's prefix folder."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from evidence_kit.render.markup import ARTICLE, PAGE
from evidence_kit.render.toolchain import installed_toolchain
from evidence_kit.verify.page_text import markup_mismatches, read_page

from ..plugin_host import build_host, write_host
from ..resign import resign

pytestmark = pytest.mark.slow

DECISION = "2026-11-01-reference-reconstruction"
PAGE_REL = f"decisions/{DECISION}/index.html"


def _article_figure(html: str, replace: Callable[[str], str]) -> str:
    """``html`` with the first '1.735' inside its article replaced by ``replace('1.735')``."""
    head, article = html.split("<article", 1)
    return head + "<article" + article.replace("1.735", replace("1.735"), 1)


def _in_header(html: str, markup: str) -> str:
    return re.sub(r"(<header[^>]*>)", lambda m: m.group(1) + markup, html, count=1)


# name -> how the page is edited; each shows a reader something else than the text verify reads.
TRICKS: dict[str, Callable[[str], str]] = {
    # html.parser reads '<!-->' as the start of a comment that runs to the next '-->'; a browser closes it at once.
    "comment closed at <!-->": lambda html: _article_figure(html, lambda fig: f"<!-->1.705, not <!-- -->{fig}"),
    # The genuine figure kept where a browser never shows it.
    "noembed": lambda html: _article_figure(html, lambda fig: f"<noembed>{fig}</noembed>"),
    # A figure a browser shows in a text box, outside and inside the article.
    "input value outside the article": lambda html: _in_header(html, '<input type="text" value="promote: 1.705">'),
    "input value in the article": lambda html: _article_figure(html, lambda fig: f'{fig}<input value="1.705">'),
    # An inline SVG figure outside the article (icons are paths; this draws text).
    "inline SVG text outside the article": lambda html: _in_header(html, '<svg viewBox="0 0 9 9"><text x="0" y="9">1.705</text></svg>'),
    "class the renderer never writes": lambda html: _article_figure(html, lambda fig: f'<span class="md-visually-hidden">{fig}</span>'),
}


def _other_toolchain(public: Path, key: Path) -> None:
    """Re-sign recording a Material version that is not installed: the rebuild is skipped, figures alone judge."""
    resign(public, key, toolchain={**installed_toolchain(), "mkdocs-material": "0.0.1"})


@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_each_trick_fails_the_figures_of_a_built_site_without_a_rebuild(run_cli, site: Path, keypair, trick: str) -> None:
    page = site / PAGE_REL
    page.write_text(TRICKS[trick](page.read_text("utf-8")), "utf-8")
    _other_toolchain(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out
    assert f"{site}/{PAGE_REL}: " in result.out


def test_an_added_page_under_search_fails(run_cli, site: Path, keypair) -> None:
    page = (site / PAGE_REL).read_text("utf-8").replace("1.735", "1.705")
    (site / "search" / "index.html").write_text(page, "utf-8")
    _other_toolchain(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out
    assert f"{site}/search/index.html: published, but not generated from the evidence" in result.out


def test_an_added_page_among_the_theme_files_fails(run_cli, site: Path, keypair) -> None:
    (site / "assets" / "javascripts" / "verdict.html").write_text("<p>promoted: 1.705</p>", "utf-8")
    _other_toolchain(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and f"{site}/assets/javascripts/verdict.html: published, but not generated" in result.out


@pytest.mark.parametrize("name", ["verdict.HTML", "verdict.xhtml", "verdict.svg", "verdict.Shtml"])
def test_a_page_of_any_spelling_among_the_theme_files_fails(run_cli, site: Path, keypair, name: str) -> None:
    # A browser shows each as a document (a case-insensitive server serves VERDICT.HTML as verdict.html).
    (site / "assets" / "images" / name).write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>promoted: 1.705</text></svg>', "utf-8")
    _other_toolchain(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and f"{site}/assets/images/{name}: published, but not generated" in result.out, result.out


XHTML_IN_XML = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>promoted: 1.705</p></body></html>\n'


@pytest.mark.parametrize("name", ["verdict.xml", "VERDICT.XPDL", "verdict.svgz", "verdict.rss", "verdict.xhtm"])
def test_an_xml_page_among_the_theme_files_fails(run_cli, site: Path, keypair, name: str) -> None:
    # Python's static server sends .xml and .xpdl as application/xml, .svgz as image/svg+xml; Chromium opens
    # .rss from a file as XML: each shows its XHTML as a page and runs its scripts.
    (site / "assets" / "images" / name).write_text(XHTML_IN_XML, "utf-8")
    _other_toolchain(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and f"{site}/assets/images/{name}: published, but not generated" in result.out, result.out


def test_the_404_page_is_held_to_the_registry_too(run_cli, site: Path, keypair) -> None:
    page = site / "404.html"
    page.write_text(_in_header(page.read_text("utf-8"), '<input value="promoted: 1.705">'), "utf-8")
    _other_toolchain(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and f"{site}/404.html: markup outside the article: published <input value>" in result.out


def test_every_page_of_a_built_site_holds_only_registered_markup(site_master: Path) -> None:
    """The registry is what build writes: every element and attribute of every page is in it, and every
    element it lists for the article is one the demo pages or Python-Markdown's extensions write."""
    pages = sorted((site_master / "public").rglob("*.html"))
    assert len(pages) > 10
    for path in pages:
        assert markup_mismatches(read_page(path.read_text("utf-8"))) == [], path
    assert {"article", "table", "img", "div"} <= set(ARTICLE) and {"input", "svg", "path"} <= set(PAGE)


@pytest.fixture(scope="module")
def host_master(tmp_path_factory: pytest.TempPathFactory, redacted_master: Path, keypair) -> Path:
    root = tmp_path_factory.mktemp("markup-host")
    done = build_host(write_host(root, {"decisions": [str(redacted_master)], "signing_key": str(keypair[0])}, extra={"use_directory_urls": False}))
    assert done.returncode == 0, done.stderr
    return root / "site" / "decisions"


HOST_TRICKS = [
    "comment closed at <!-->",
    "noembed",
    "input value outside the article",
    "input value in the article",
    "inline SVG text outside the article",
]


@pytest.mark.parametrize("trick", HOST_TRICKS)
def test_each_trick_fails_in_a_host_sites_prefix_folder(run_cli, host_master: Path, tmp_path: Path, keypair, trick: str) -> None:
    prefix = Path(shutil.copytree(host_master, tmp_path / "decisions"))
    page = prefix / DECISION / "index.html"
    page.write_text(TRICKS[trick](page.read_text("utf-8")), "utf-8")
    resign(prefix, keypair[0])
    result = run_cli("verify", prefix, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL figures", result.out, re.M), result.out


def test_a_figure_on_the_404_page_fails_without_a_rebuild(run_cli, site: Path, keypair) -> None:
    """Nothing regenerates the not-found page's text: with another toolchain no figure may appear on it."""
    page = site / "404.html"
    page.write_text(page.read_text("utf-8").replace("</article>", "<p>Adopted: 40% faster</p></article>", 1), "utf-8")
    _other_toolchain(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and f"{site}/404.html: figures: published 40%, recomputed (only figures of page titles)" in result.out, result.out
