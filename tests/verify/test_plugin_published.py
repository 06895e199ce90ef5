"""A decision published inside a host MkDocs site by the plugin: verified by its evidence, its analysis and
the figures of its pages' text, authenticated only by a pinned key, and never by the host site's bytes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ..plugin_host import build_host, write_host
from ..resign import resign
from .test_site_tamper import _failed, edit_first_figure

pytestmark = pytest.mark.slow  # real MkDocs builds of a host site

DECISION = "2026-11-01-reference-reconstruction"
HOST_LINE = "not proven: anything of the host site around these decisions"


# A host whose own Markdown would change a decision page's text (permalinks, smart symbols, magic
# links) and whose header links off the site: neither may reach the decision pages, nor fail them.
HOST_MARKDOWN = {
    "markdown_extensions": [{"toc": {"permalink": True}}, "pymdownx.smartsymbols", "pymdownx.magiclink"],
    "repo_url": "https://example.com/team/docs",
    "edit_uri": "edit/main/docs/",
}


def _host(root: Path, decision: Path, **plugin: object) -> Path:
    extra = {"use_directory_urls": False} if not plugin else HOST_MARKDOWN
    done = build_host(write_host(root, {"decisions": [str(decision)], **plugin}, extra=extra))
    assert done.returncode == 0, done.stderr
    return root / "site" / "decisions"


@pytest.fixture(scope="module")
def signed_master(tmp_path_factory: pytest.TempPathFactory, redacted_master: Path, keypair) -> Path:
    """The prefix folder of a host built with ``signing_key`` (MkDocs' default directory URLs)."""
    return _host(tmp_path_factory.mktemp("signed-host"), redacted_master, signing_key=str(keypair[0]))


@pytest.fixture(scope="module")
def unsigned_master(tmp_path_factory: pytest.TempPathFactory, redacted_master: Path) -> Path:
    """The prefix folder of a host built without a key (plain ``.html`` URLs)."""
    return _host(tmp_path_factory.mktemp("unsigned-host"), redacted_master)


@pytest.fixture
def signed(tmp_path: Path, signed_master: Path) -> Path:
    return Path(shutil.copytree(signed_master, tmp_path / "decisions"))


def test_signed_decision_verifies_with_the_pinned_key(run_cli, signed_master: Path, keypair) -> None:
    result = run_cli("verify", signed_master, "--key", keypair[1])
    assert result.code == 0, result.out
    assert re.search(r"^PASS figures .* match \(decisions published inside a host MkDocs site", result.out, re.M)
    assert re.search(r"^SKIP sources +decisions published inside a host MkDocs site", result.out, re.M)
    last = result.out.splitlines()[-1]
    assert last.startswith(f"verified: {signed_master}: authenticated: signed by the publisher's key") and HOST_LINE in last
    assert "headerlink" in (signed_master.parent / "runbook" / "index.html").read_text()  # the host's Markdown, there
    assert "headerlink" not in (signed_master / DECISION / "index.html").read_text()  # and not here
    doc = json.loads(run_cli("verify", signed_master, "--key", keypair[1], "--json").out)
    assert doc["verified"] and any(line.startswith("anything of the host site") for line in doc["not_proven"])


def test_signed_decision_unpinned_is_not_authenticated(run_cli, signed_master: Path) -> None:
    result = run_cli("verify", signed_master)
    assert result.code == 1 and result.out.splitlines()[-1].startswith(f"NOT AUTHENTICATED: {signed_master}:"), result.out


def test_unsigned_decision_is_integrity_only(run_cli, unsigned_master: Path, keypair) -> None:
    bare = run_cli("verify", unsigned_master)
    assert bare.code == 1 and "who published it (the folder is not signed)" in bare.out and HOST_LINE[13:] in bare.out
    allowed = run_cli("verify", unsigned_master, "--allow-unpinned")
    assert allowed.code == 0 and allowed.out.splitlines()[-1].startswith("verified without authentication"), allowed.out
    pinned = run_cli("verify", unsigned_master, "--key", keypair[1])
    assert pinned.code == 1 and "FAIL signature" in pinned.out


def test_edited_number_resigned_fails_naming_the_figure(run_cli, signed: Path, keypair) -> None:
    figure = edit_first_figure(signed / DECISION / "index.html")
    resign(signed, keypair[0])  # every hash and the signature hold again: only the recomputation can tell
    result = run_cli("verify", signed, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert any(f"{DECISION}/index.html" in line and f"published 0.001, recomputed {figure}" in line for line in failed["figures"]), failed


def test_edited_chart_data_and_article_text_fail(run_cli, signed: Path, keypair) -> None:
    per_run = signed / DECISION / "cache-layout" / "per-run" / "index.html"
    html = per_run.read_text()
    per_run.write_text(re.sub(r"(e2e_p50_s&quot;:)([0-9.]+)", r"\g<1>9.99", html, count=1))
    summary = signed / DECISION / "cache-layout" / "summary" / "index.html"
    summary.write_text(re.sub(r"(<article[^>]*>)", r"\1<p>Adopted: 40% faster</p>", summary.read_text(), count=1))
    resign(signed, keypair[0])
    failed = _failed(run_cli("verify", signed, "--key", keypair[1]))
    assert set(failed) == {"figures"}
    assert any("per-run/index.html" in line and "spec datasets" in line for line in failed["figures"]), failed
    assert any("summary/index.html" in line for line in failed["figures"]), failed


def test_deleted_or_added_page_fails(run_cli, signed: Path, keypair) -> None:
    (signed / DECISION / "hardware" / "index.html").unlink()
    (signed / DECISION / "extra.html").write_text("<article><p>Independent audit: passed</p></article>")
    resign(signed, keypair[0])
    failed = _failed(run_cli("verify", signed, "--key", keypair[1]))
    assert any("hardware.html: missing" in line for line in failed["figures"]), failed
    assert any("extra.html: published, but not generated" in line for line in failed["figures"]), failed


def test_one_decision_folder_points_at_its_prefix_folder(run_cli, signed_master: Path) -> None:
    result = run_cli("verify", signed_master / DECISION)
    assert result.code == 2 and f"verify its prefix folder {signed_master}" in result.err


def test_a_key_that_is_not_the_publishers_fails_and_so_does_a_resigned_folder(run_cli, signed: Path, keypair, tmp_path: Path) -> None:
    """Pinned to someone else's key the folder is not the publisher's; re-signed by an attacker with their own
    key (the folder then ships the attacker's public key), the publisher's pin still refuses it."""
    from evidence_kit.attest.keys import generate_keypair

    other_private, other_public, _ = generate_keypair(tmp_path / "other")
    wrong = run_cli("verify", signed, "--key", other_public)
    assert wrong.code == 1 and "FAIL signature" in wrong.out, wrong.out
    resign(signed, other_private)
    forged = run_cli("verify", signed, "--key", keypair[1])
    assert forged.code == 1 and "FAIL signature" in forged.out, forged.out
    assert not forged.out.splitlines()[-1].startswith("verified"), forged.out


def test_the_plugin_signs_that_it_published_the_folder_and_verify_holds_it_to_that(run_cli, signed: Path, keypair) -> None:
    """The plugin's statement says ``publication: mkdocs-plugin``; re-signed as a built site, the claim and
    the layout disagree and ``figures`` fails."""
    from ..resign import signed_predicate

    assert signed_predicate(signed)["publication"] == "mkdocs-plugin"
    resign(signed, keypair[0], publication="site")
    failed = _failed(run_cli("verify", signed, "--key", keypair[1]))
    assert set(failed) == {"figures"} and any("laid out as a MkDocs plugin's prefix folder" in line for line in failed["figures"]), failed
