"""The ``evidence-kit`` MkDocs plugin: a Material host site with its own pages and palette gains a decision."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evidence_kit.attest.keys import generate_keypair
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.redact import redact_bundle

from .plugin_host import build_host, write_host

pytestmark = pytest.mark.slow  # real MkDocs builds of a host site, charts included

DECISION = "2026-11-01-reference-reconstruction"


@pytest.fixture(scope="module")
def plugin_decision(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference decision, redacted: what a host site publishes."""
    base = tmp_path_factory.mktemp("decision")
    return redact_bundle(write_reference_decision(base / "raw"), base / "decision", key=b"plugin-tests-key-0123456789abcdef").out


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory, plugin_decision: Path) -> Path:
    """The host built with the plugin's defaults: the decisions appended as a ``Decisions`` section, plain
    ``.html`` URLs (``use_directory_urls: false``), unsigned."""
    root = tmp_path_factory.mktemp("host")
    config = write_host(root, {"decisions": [str(plugin_decision)]}, extra={"use_directory_urls": False})
    done = build_host(config)
    assert done.returncode == 0, done.stderr
    return root / "site"


def _nav_links(html: str) -> list[str]:
    """The primary navigation's link targets, in order."""
    nav = html[html.index('<nav class="md-nav md-nav--primary"') :]
    return re.findall(r'class="md-nav__link[^"]*"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*class="md-nav__link', nav[:20000])


def test_host_keeps_its_pages_theme_and_palette(host: Path) -> None:
    home = (host / "index.html").read_text()
    assert "How we run the serving fleet." in home
    assert "Restart the engine with the usual script." in (host / "runbook.html").read_text()
    page = (host / "decisions" / DECISION / "index.html").read_text()
    for html in (home, page):
        assert 'data-md-color-primary="deep-purple"' in html and 'data-md-color-accent="amber"' in html
        assert "<title>" in html and "Serving team" in html
    assert 'href="../assets/extra.css"' in page  # our styles beside the host's theme, not instead of it


def test_decision_pages_are_under_the_prefix_and_in_the_nav(host: Path) -> None:
    base = host / "decisions" / DECISION
    for rel in (
        "index.html",
        "artifacts.html",
        "cache-layout/summary.html",
        "cache-layout/per-run.svg",
        "cache-layout/per-run.json",
        "analysis.json",
        "evidence/decision.toml",
    ):
        assert (base / rel).is_file(), rel
    assert (host / "decisions" / "methodology.html").is_file()
    assert (host / "decisions" / "assets" / "vega-bundle.js").stat().st_size > 100_000  # offline: vendored
    assert (host / "decisions" / "manifest.json").is_file() and not (host / "decisions" / "manifest.dsse.json").exists()
    links = [a or b for a, b in _nav_links((host / "index.html").read_text())]
    assert links.index("index.html") < links.index("runbook.html") < links.index(f"decisions/{DECISION}/index.html")
    assert f"decisions/{DECISION}/artifacts.html" not in links  # only the decision pages themselves are listed
    page = (base / "index.html").read_text()
    # charts.js on every page; the ~900 KB bundle it loads beside it only where a chart is (tests/test_plugin_hosts.py).
    assert '<script src="../assets/charts.js">' in page and 'class="ek-vega" data-vl-spec=' in page
    assert "vega-bundle.js" not in (host / "index.html").read_text() and "vega-bundle.js" not in page
    assert 'href="../methodology.html">Methodology</a>' in page


def test_placeholder_section_and_directory_urls(tmp_path: Path, plugin_decision: Path) -> None:
    """Where the host's nav has the section (``- Decisions: []``), the decisions go there; with MkDocs'
    default ``use_directory_urls`` pages are ``x/index.html``."""
    nav = [{"Home": "index.md"}, {"Decisions": []}, {"Runbook": "runbook.md"}]
    config = write_host(tmp_path, {"decisions": [str(plugin_decision)], "prefix": "ops/decisions"}, nav=nav)
    done = build_host(config)
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    assert (site / "ops" / "decisions" / DECISION / "artifacts" / "index.html").is_file()
    links = [a or b for a, b in _nav_links((site / "index.html").read_text())]
    assert links.index(f"ops/decisions/{DECISION}/") < links.index("runbook/")


@pytest.mark.parametrize("case", ["missing folder", "not a decision", "prefix taken"])
def test_bad_decision_fails_the_build_with_one_line(tmp_path: Path, plugin_decision: Path, case: str) -> None:
    decision = {"missing folder": str(tmp_path / "nowhere"), "not a decision": str(tmp_path / "docs")}.get(case)
    config = write_host(tmp_path, {"decisions": [decision or str(plugin_decision)]})
    if case == "prefix taken":
        (tmp_path / "docs" / "decisions").mkdir()
        (tmp_path / "docs" / "decisions" / "ours.md").write_text("# Host page\n")
    done = build_host(config)
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and "evidence-kit: " in errors[0], done.stderr
    assert {"missing folder": "nowhere", "not a decision": "docs", "prefix taken": "ours.md"}[case] in errors[0]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "site" / "decisions").exists()


def test_a_copy_of_the_key_in_the_built_site_fails_the_build(tmp_path: Path, plugin_decision: Path) -> None:
    """The key's path is outside every published folder, but its bytes are in docs/ under another name: the
    check after the build finds the copy, deletes it and fails, and nothing is signed."""

    private, _, _ = generate_keypair(tmp_path / "keys")
    config = write_host(tmp_path, {"decisions": [str(plugin_decision)], "signing_key": str(private)})
    (tmp_path / "docs" / "notes.txt").write_bytes(private.read_bytes())
    done = build_host(config)
    assert done.returncode != 0 and "copy of the signing key" in done.stderr, done.stderr[-800:]
    assert not (tmp_path / "site" / "notes.txt").exists()
    assert not (tmp_path / "site" / "decisions" / "manifest.dsse.json").exists()


def test_the_key_pasted_into_a_host_page_fails_the_build(tmp_path: Path, plugin_decision: Path) -> None:
    """Not a copy of the file: the key's secret pasted into the prose of a host page (its PEM body; the seed's
    spellings are tests/attest's). The page is deleted, the build fails, and nothing is signed."""

    private, _, _ = generate_keypair(tmp_path / "keys")
    secret = private.read_text().splitlines()[1]
    config = write_host(tmp_path, {"decisions": [str(plugin_decision)], "signing_key": str(private)})
    (tmp_path / "docs" / "ops.md").write_text(f"# Ops\n\nOur key, for the record: `{secret}`.\n")
    done = build_host(config)
    assert done.returncode != 0 and "copy of the signing key" in done.stderr, done.stderr[-800:]
    assert not (tmp_path / "site" / "ops" / "index.html").exists()
    assert not (tmp_path / "site" / "decisions" / "manifest.dsse.json").exists()
