"""The plugin in the hosts it meets: a plugin that stamps build-time content into every page is refused
with one line (mkdocs-git-revision-date-localized, installed for real), the decision folders are watched
under `mkdocs serve`, and Zensical, which runs no MkDocs plugin, fails loudly through the
`evidence_kit.zensical_guard` Markdown extension instead of publishing the site without its decisions."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.livereload import LiveReloadServer

from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.mkdocs_plugin import EvidenceKitPlugin
from evidence_kit.redact import redact_bundle
from evidence_kit.zensical_guard import MESSAGE

from .plugin_host import _plugin_path, build_host, write_host


@pytest.fixture(scope="module")
def plugin_decision(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("decision")
    return redact_bundle(write_reference_decision(base / "raw"), base / "decision", key=b"plugin-tests-key-0123456789abcdef").out


def _git_repo(root: Path) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "host"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)


def test_a_host_plugin_that_stamps_the_build_date_is_refused_in_one_line(tmp_path: Path, plugin_decision: Path) -> None:
    config = write_host(tmp_path, {"decisions": [str(plugin_decision)]})
    text = config.read_text().replace("plugins:\n- search\n", "plugins:\n- search\n- git-revision-date-localized\n")
    config.write_text(text)
    _git_repo(tmp_path)
    done = build_host(config)
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if "evidence-kit:" in line]
    assert len(said) == 1 and "'git-revision-date-localized' stamps" in said[0] and "verify" in said[0], done.stderr
    assert not (tmp_path / "site" / "decisions").exists()
    # Without it, the same host builds (the refusal is the plugin's, not the host's).
    config.write_text(text.replace("- git-revision-date-localized\n", ""))
    assert build_host(config).returncode == 0


def test_the_decision_folders_are_watched_under_mkdocs_serve(tmp_path: Path, plugin_decision: Path) -> None:
    config_path = write_host(tmp_path, {"decisions": [str(plugin_decision)]})
    config = load_config(str(config_path))
    plugin = config.plugins["evidence-kit"]
    assert isinstance(plugin, EvidenceKitPlugin)
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "site"))
    plugin.on_serve(server, config=config, builder=lambda: None)
    assert str(plugin_decision.resolve()) in {str(Path(p).resolve()) for p in server._watched_paths}


def _with_guard(config: Path) -> None:
    config.write_text(config.read_text() + "markdown_extensions:\n- evidence_kit.zensical_guard\n")


def test_under_mkdocs_the_guard_changes_nothing(tmp_path: Path, plugin_decision: Path) -> None:
    config = write_host(tmp_path, {"decisions": [str(plugin_decision)]})
    _with_guard(config)
    done = build_host(config)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "site" / "decisions").rglob("index.html"))


@pytest.mark.skipif(shutil.which("zensical", path=str(Path(sys.executable).parent)) is None, reason="zensical is a test dependency")
def test_zensical_fails_loudly_instead_of_publishing_no_decision(tmp_path: Path, plugin_decision: Path) -> None:
    config = write_host(tmp_path, {"decisions": [str(plugin_decision)]})
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(_plugin_path(tmp_path)))
    zensical = str(Path(sys.executable).parent / "zensical")
    # The silent failure the guard exists for: without it, Zensical builds the host and drops the plugin.
    silent = subprocess.run([zensical, "build", "--config-file", str(config)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert silent.returncode == 0 and (tmp_path / "site" / "index.html").is_file()
    assert not (tmp_path / "site" / "decisions").exists()
    shutil.rmtree(tmp_path / "site")
    _with_guard(config)
    loud = subprocess.run([zensical, "build", "--config-file", str(config)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert loud.returncode != 0 and MESSAGE in loud.stdout + loud.stderr
    assert not (tmp_path / "site" / "index.html").exists()


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/setup --browser installs it)")
def test_charts_draw_after_an_instant_navigation_in_chromium(tmp_path: Path, plugin_decision: Path) -> None:
    from playwright.sync_api import sync_playwright

    from .publish.browser import FLAGS

    with socket.socket() as probe:  # Material's instant navigation needs site_url: the port is known first
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    extra = {"use_directory_urls": False, "site_url": f"http://127.0.0.1:{port}/"}
    config = write_host(tmp_path, {"decisions": [str(plugin_decision)]}, extra=extra)
    text = config.read_text().replace("theme:\n", "theme:\n  features: [navigation.instant]\n", 1)
    config.write_text(text)
    assert build_host(config).returncode == 0
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path / "site")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        server.stdout.readline()  # type: ignore[union-attr]  # "Serving HTTP on 127.0.0.1 port N ..."
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{port}/index.html")
            page.wait_for_load_state("networkidle")
            # A host page, then the decision through the nav: Material's instant navigation swaps the page
            # in place (no full load), and the charts still draw.
            page.evaluate("() => { window.__ekStayed = true }")
            first_scripts = page.evaluate("() => [...document.scripts].map(s => s.src)")
            page.evaluate("() => document.querySelector(\"nav a[href*='decisions/'][href$='/index.html']\").click()")
            page.wait_for_function("document.querySelectorAll('div.ek-vega[data-ek-drawn=done] svg.marks').length >= 1", timeout=60000)
            assert page.evaluate("() => window.__ekStayed === true"), "a full page load: instant navigation was not used"
            # The host page had not loaded the Vega bundle: it came with the first page that has a chart.
            assert not any("vega-bundle" in src for src in first_scripts), first_scripts
            assert errors == []
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_standalone_build_uses_no_mkdocs_plugin_api() -> None:
    # `evidence-kit build` runs MkDocs as a program on a site of its own: only the plugin module (and the
    # guard, which names it) reaches into MkDocs' plugin API, so a host builder without it (Zensical) is
    # no obstacle to publishing decisions on their own.
    import ast

    package = Path(__file__).resolve().parents[1] / "evidence_kit"
    users = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.startswith("mkdocs.") for n in names):  # a bare `import mkdocs` reads its files' paths
                users.add(path.relative_to(package).as_posix())
    assert users == {"mkdocs_plugin.py"}


def _site_bytes(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_rendered_decisions_are_cached_by_their_digests_and_never_stale(tmp_path: Path, plugin_decision: Path) -> None:
    decision = tmp_path / "decision"
    shutil.copytree(plugin_decision, decision)
    config = write_host(tmp_path / "host", {"decisions": [str(decision)]})
    assert build_host(config).returncode == 0
    first = _site_bytes(tmp_path / "host" / "site")
    (entry,) = [p for p in (tmp_path / "host" / ".cache" / "evidence-kit").iterdir() if not p.name.startswith(".")]
    assert (entry / "entry.json").is_file()
    # An unchanged rebuild reads the rendering back: the same bytes.
    assert build_host(config).returncode == 0
    assert _site_bytes(tmp_path / "host" / "site") == first
    # A damaged entry is a miss, never a page: the tampered page is not published.
    page = next((entry / "files").glob("*/index.md"))  # the decision's page
    page.write_text(page.read_text() + "\nTAMPERED\n")
    assert build_host(config).returncode == 0
    assert _site_bytes(tmp_path / "host" / "site") == first
    # Changed evidence is another key, read and checked again: here an edit after redaction, refused
    # as without a cache (the rendering of the old bytes is not served).
    toml = decision / "decision.toml"
    toml.write_text(toml.read_text().replace('title = "', 'title = "Recached: ', 1))
    done = build_host(config)
    assert done.returncode != 0 and "decision.toml: differs from manifest.json" in done.stderr


CHART_LIBRARIES = ("altair", "pandas", "vl_convert")


def _build_reporting_chart_libraries(config: Path) -> list[str]:
    """``mkdocs build --strict`` of the host in a child process, and the chart libraries it imported."""
    probe = (
        "import sys\n"
        "from mkdocs.commands.build import build\n"
        "from mkdocs.config import load_config\n"
        f"build(load_config({str(config)!r}, strict=True))\n"
        f"print(' '.join(m for m in {CHART_LIBRARIES!r} if m in sys.modules))\n"
    )
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=os.pathsep.join(_plugin_path(config.parent)))
    done = subprocess.run([sys.executable, "-c", probe], cwd=config.parent, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_an_unchanged_rebuild_draws_nothing_and_publishes_the_same_bytes(tmp_path: Path, plugin_decision: Path) -> None:
    config = write_host(tmp_path / "host", {"decisions": [str(plugin_decision)]})
    assert _build_reporting_chart_libraries(config) == list(CHART_LIBRARIES)  # cold: the charts are drawn
    cold = _site_bytes(tmp_path / "host" / "site")
    # Warm: neither Altair nor vl-convert (not even for the leak scan's copy of its chart bundle, whose
    # sha256 the cache recorded), and the site is the cold build's, byte for byte.
    assert _build_reporting_chart_libraries(config) == []
    assert _site_bytes(tmp_path / "host" / "site") == cold


def test_material_tags_list_a_decision_by_the_tags_of_its_decision_toml(tmp_path: Path, run_cli) -> None:
    raw = write_reference_decision(tmp_path / "raw")
    toml = raw / "decision.toml"
    toml.write_text(toml.read_text().replace('title = "', 'tags = ["kv-cache", "scout 2026"]\ntitle = "', 1))
    decision = redact_bundle(raw, tmp_path / "decision", key=b"plugin-tests-key-0123456789abcdef").out
    nav = [{"Home": "index.md"}, {"Runbook": "runbook.md"}, {"Tags": "tags.md"}]
    config = write_host(tmp_path / "host", {"decisions": [str(decision)]}, nav=nav)
    text = config.read_text().replace("- search\n", "- search\n- tags\n", 1)
    assert "- tags\n" in text
    config.write_text(text)
    (tmp_path / "host" / "docs" / "tags.md").write_text("# Tags\n\n<!-- material/tags -->\n")
    done = build_host(config)
    assert done.returncode == 0, done.stderr
    site = tmp_path / "host" / "site"
    listing = (site / "tags" / "index.html").read_text()
    page = "decisions/2026-11-01-reference-reconstruction/"
    for tag in ("kv-cache", "scout 2026"):
        assert f">{tag}<" in listing or f"{tag}</" in listing, tag
    assert f'href="../{page}"' in listing
    # Listed, but no tag bar drawn into the decision's article (Material puts it there), which `verify`
    # would refuse as markup build does not write: the page verifies.
    assert 'class="md-tag' not in (site / page / "index.html").read_text()
    result = run_cli("verify", site / "decisions", "--allow-unpinned")
    assert result.code == 0, result.out + result.err
