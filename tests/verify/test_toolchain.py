"""A site outlives its toolchain: with other versions installed than the signed statement records, verify
still checks every figure against the pages' text, and skips only the byte-for-byte rebuild, in one line.

The other versions are simulated here by re-signing the site with a record that differs from what is
installed; ``test_other_toolchain.py`` installs a real other mkdocs-material in a virtual environment.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree
from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign
from .test_site_tamper import DECISION, _failed, edit_first_figure

pytestmark = pytest.mark.slow  # the session builds a real site once

RECORDED = "9.0.0"  # the mkdocs-material the re-signed statements claim built the site


def _predicate(public: Path) -> dict:
    envelope = json.loads((public / "manifest.dsse.json").read_text())
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]


def _resign(public: Path, key: Path, toolchain: object = None) -> None:
    """Sign ``public`` again, recording ``toolchain`` (by default: the installed one, Material at RECORDED)."""
    if toolchain is None:
        toolchain = {**installed_toolchain(), "mkdocs-material": RECORDED}
    sign_tree(public, key, predicate={"toolchain": toolchain})


def test_build_sign_records_the_toolchain(site_master: Path) -> None:
    recorded = _predicate(site_master / "public")["toolchain"]
    assert recorded == installed_toolchain()
    assert {"python", "mkdocs", "mkdocs-material", "markdown", "pymdown-extensions", "vl-convert-python", "altair"} <= set(recorded)


def test_a_site_built_with_another_pymdown_extensions_is_not_called_tampered(run_cli, site: Path, keypair) -> None:
    # pymdown-extensions writes each page's code blocks: a site built with another release (the lock pinned
    # 13.1.2 until 13 proved to need Python 3.11.5) may differ in markup. Recorded, the difference is named and
    # the rebuild skipped; unrecorded, a rebuild with this release would have said the pages are not what build writes.
    _resign(site, keypair[0], toolchain={**installed_toolchain(), "pymdown-extensions": "9.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    installed = installed_toolchain()["pymdown-extensions"]
    assert result.code == 0, result.out
    assert f"SKIP sources   site rebuild skipped: built with pymdown-extensions 9.0, installed {installed}; " in result.out


def test_a_site_signed_before_pymdown_extensions_was_recorded_says_so(run_cli, site: Path, keypair) -> None:
    # Its record lacks the package: the site was built with some release of it, not with none, and the
    # rebuild is skipped, the last line saying what was not proven and why.
    recorded = installed_toolchain()
    installed = recorded.pop("pymdown-extensions")
    _resign(site, keypair[0], toolchain=recorded)
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 0, result.out
    why = f"built with pymdown-extensions (not recorded), installed {installed}"
    assert f"SKIP sources   site rebuild skipped: {why}; " in result.out
    assert (
        f"not proven: that each page's markup and Material's theme files (its scripts among them) are what build writes (not rebuilt: {why};"
        in result.out
    )


def test_other_toolchain_skips_the_rebuild_in_one_line(run_cli, site: Path, keypair) -> None:
    _resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 0, result.out
    installed = installed_toolchain()["mkdocs-material"]
    head = f"SKIP sources   site rebuild skipped: built with mkdocs-material {RECORDED}, installed {installed}; "
    lines = [x for x in result.out.splitlines()[:-1] if RECORDED in x]
    assert len(lines) == 1 and lines[0].startswith(head), result.out
    assert (
        "; not proven: that each page's markup and Material's theme files (its scripts among them) are what build writes "
        f"(not rebuilt: built with mkdocs-material {RECORDED}" in result.out.splitlines()[-1]
    )
    assert re.search(r"; \d+ file\(s\) not regenerated, each covered by the signature .*; figures checked against the pages' text$", lines[0])
    assert "PASS figures" in result.out and result.out.splitlines()[-1].startswith(f"verified: {site}: authenticated")
    report = json.loads(run_cli("verify", site, "--key", keypair[1], "--json").out)
    assert report["verified"] is True
    assert [item for item in report["not_proven"] if "not rebuilt: built with mkdocs-material" in item], report


def test_other_toolchain_still_fails_a_figure_changed_in_a_page(run_cli, site: Path, keypair) -> None:
    figure = edit_first_figure(site / DECISION / "cache-layout" / "summary.html")
    _resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert any("summary.html" in line and f"published 0.001, recomputed {figure}" in line for line in failed["figures"]), result.out
    assert "SKIP sources   site rebuild skipped" in result.out


def test_other_toolchain_still_checks_the_site_folder(run_cli, site_folder: Path, keypair) -> None:
    """Given SITE, its Markdown is checked against the signed record of the sources, and what build never writes
    still fails."""
    resign(site_folder / "public", keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": RECORDED})
    markdown = site_folder / "site" / DECISION / "index.md"
    markdown.write_text(markdown.read_text().replace("1.735", "1.705", 1))
    (site_folder / "README.md").write_text("Adopted.\n")
    result = run_cli("verify", site_folder, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"sources"}, result.out
    assert any("index.md" in line and "is not the file the signed statement records" in line for line in failed["sources"])
    assert any("README.md" in line for line in failed["sources"])
    assert f"site rebuild skipped: built with mkdocs-material {RECORDED}" in result.out


def test_a_malformed_toolchain_record_fails(run_cli, site: Path, keypair) -> None:
    _resign(site, keypair[0], toolchain="mkdocs-material 9")
    result = run_cli("verify", site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"sources"}, result.out
    assert any("'toolchain' is not a table of package versions" in line for line in failed["sources"])


def test_a_site_recording_no_toolchain_is_rebuilt_with_the_installed_one(run_cli, site: Path, keypair) -> None:
    sign_tree(site, keypair[0])  # a site signed by sign_tree alone records none
    assert "toolchain" not in _predicate(site)
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 0, result.out
    assert "a rebuild by the installed toolchain (the site records none)" in result.out
