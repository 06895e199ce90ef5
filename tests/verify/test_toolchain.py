"""A site outlives its toolchain: with other versions installed than the signed statement records, verify
still checks every figure against the pages' text, rebuilds the site with the installed versions, proves every
file that rebuilds byte for byte, and names in one line each file it could not reproduce.

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


def _edit_a_theme_script(public: Path) -> str:
    """Append a comment to one of Material's scripts, as another release's would differ; its path in ``public``."""
    script = sorted((public / "assets" / "javascripts").glob("bundle.*.min.js"))[0]
    script.write_bytes(script.read_bytes() + b"\n/* another release */\n")
    return script.relative_to(public).as_posix()


def test_a_site_recording_other_versions_that_rebuilds_byte_for_byte_passes(run_cli, site: Path, keypair) -> None:
    # pymdown-extensions writes each page's code blocks; a site whose record names another release is rebuilt
    # with the installed one all the same, and every file it rebuilds byte for byte is proven whatever built it.
    _resign(site, keypair[0], toolchain={**installed_toolchain(), "pymdown-extensions": "9.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    installed = installed_toolchain()["pymdown-extensions"]
    assert result.code == 0, result.out
    assert re.search(
        rf"^PASS sources   \d+ file\(s\) compared with a rebuild by the installed toolchain, which is not the recorded one "
        rf"\(built with pymdown-extensions 9\.0, installed {re.escape(installed)}\): public/ is byte for byte what build writes",
        result.out,
        re.M,
    ), result.out
    assert "not proven" not in result.out.splitlines()[-1]


def test_a_site_signed_before_pymdown_extensions_was_recorded_is_rebuilt_all_the_same(run_cli, site: Path, keypair) -> None:
    # Its record lacks the package (signed before it was recorded): the installed release rebuilds it byte for byte.
    recorded = installed_toolchain()
    installed = recorded.pop("pymdown-extensions")
    _resign(site, keypair[0], toolchain=recorded)
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 0, result.out
    assert (
        f"a rebuild by the installed toolchain, which is not the recorded one (built with pymdown-extensions (not recorded), installed {installed})"
        in (result.out)
    )


def test_other_versions_name_each_file_they_do_not_reproduce_in_one_line(run_cli, site: Path, keypair) -> None:
    # A theme script that differs from the installed Material's may be the recorded release's or an edit: named,
    # not failed, with what still holds for it; every other file is rebuilt byte for byte.
    script = _edit_a_theme_script(site)
    _resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 0, result.out
    installed = installed_toolchain()["mkdocs-material"]
    head = f"SKIP sources   site not reproduced with the installed versions: built with mkdocs-material {RECORDED}, installed {installed}; "
    lines = [x for x in result.out.splitlines()[:-1] if RECORDED in x]
    assert len(lines) == 1 and lines[0].startswith(head), result.out
    assert re.search(
        r"; 1 file\(s\) not regenerated, each covered by the signature .*; figures checked against the pages' text; \d+ file\(s\) byte for byte",
        lines[0],
    )
    last = result.out.splitlines()[-1]
    assert last.startswith(f"verified: {site}: authenticated"), result.out
    assert (
        "; not proven: that each page's markup and Material's theme files (its scripts among them) are what build writes "
        f"(not reproduced with the installed versions: built with mkdocs-material {RECORDED}" in last
    )
    assert f"Not regenerated: public/{script};" in last, last
    assert "PASS figures" in result.out
    report = json.loads(run_cli("verify", site, "--key", keypair[1], "--json").out)
    assert report["verified"] is True and report["not_regenerated"] == [f"public/{script}"], report


def test_the_same_edit_fails_with_the_recorded_versions(run_cli, site: Path, keypair) -> None:
    script = _edit_a_theme_script(site)
    resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"sources"}, result.out
    assert any(line.startswith(f"{site}/{script}:") and "differs from the theme file" in line for line in failed["sources"]), result.out


def test_other_toolchain_still_fails_a_figure_changed_in_a_page(run_cli, site: Path, keypair) -> None:
    figure = edit_first_figure(site / DECISION / "cache-layout" / "summary.html")
    _resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert any("summary.html" in line and f"published 0.001, recomputed {figure}" in line for line in failed["figures"]), result.out


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


def test_an_installed_mkdocs_that_cannot_rebuild_another_versions_site_names_every_file(run_cli, site: Path, keypair, monkeypatch) -> None:
    # An MkDocs release that refuses the recorded release's configuration: nothing is reproduced, nothing failed.
    from evidence_kit.errors import CheckFailed
    from evidence_kit.verify import sources

    def refuse(config: Path, epoch: int) -> None:
        raise CheckFailed("mkdocs build --strict failed: unknown option", config)

    monkeypatch.setattr(sources, "run_mkdocs", refuse)
    monkeypatch.setattr(sources, "_REBUILT", {})
    _resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1], "--json")
    report = json.loads(result.out)
    assert result.code == 0 and report["verified"] is True, result.out
    detail = next(c["detail"] for c in report["checks"] if c["check"] == "sources")
    assert (
        detail.startswith(f"site not reproduced with the installed versions: built with mkdocs-material {RECORDED}, installed ")
        and "and the installed MkDocs could not rebuild it (mkdocs build --strict failed: unknown option)" in detail
    ), detail
    assert "public/index.html" in report["not_regenerated"] and len(report["not_regenerated"]) > 10


def test_a_file_missing_under_other_versions_is_counted_never_called_complete(run_cli, site: Path, keypair) -> None:
    # A theme file another release does not ship, or one deleted: either way the site is not "byte for byte".
    script = sorted((site / "assets" / "javascripts").rglob("*.min.js"))[-1]
    script.unlink()
    _resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 0, result.out
    (line,) = [x for x in result.out.splitlines() if x.startswith(("PASS sources", "SKIP sources"))]
    assert line.startswith("SKIP sources   site not reproduced with the installed versions: built with mkdocs-material ") and (
        "; 1 file(s) the installed versions build are not in the site; 0 file(s) not regenerated" in line
    ), line
