"""No silent skip: ``build --sign`` signs the site's sources (``mkdocs.yml`` and every file of ``site/``, what a
repository commits and a code host renders) with ``public/``, and with another toolchain installed they are
still checked, against that record and against what build writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evidence_kit.attest.statement import SOURCES_FIELD
from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign, signed_predicate

pytestmark = pytest.mark.slow

DECISION = "2026-11-01-reference-reconstruction"
MARKDOWN = f"site/decisions/{DECISION}/index.md"


def _other_toolchain(site: Path, key: Path, **overrides: object) -> None:
    resign(site / "public", key, toolchain={**installed_toolchain(), "mkdocs-material": "0.0.1"}, **overrides)


def test_build_sign_records_every_source(site_master: Path) -> None:
    recorded = signed_predicate(site_master / "public")[SOURCES_FIELD]
    on_disk = {p.relative_to(site_master).as_posix() for p in (site_master / "site").rglob("*") if p.is_file()} | {"mkdocs.yml"}
    assert set(recorded) == on_disk and MARKDOWN in recorded


def test_with_another_toolchain_verify_names_what_it_did_not_regenerate(run_cli, site_folder: Path, keypair) -> None:
    # A page the installed versions write otherwise (here: one more newline, as another release's might).
    page = site_folder / "public" / "index.html"
    page.write_bytes(page.read_bytes() + b"\n")
    _other_toolchain(site_folder, keypair[0])
    result = run_cli("verify", site_folder, "--key", keypair[1], "--json")
    report = json.loads(result.out)
    assert result.code == 0, result.out
    sources = next(c for c in report["checks"] if c["check"] == "sources")
    assert sources["status"] == "skip" and re.search(r"\b1 file\(s\) not regenerated, each covered by the signature", sources["detail"])
    said = " ".join(report["not_proven"])
    assert "Not regenerated: " in said and "the publisher signed each one" in said
    # The committed sources are regenerated with any toolchain, and every other page rebuilt byte for byte.
    assert report["not_regenerated"] == ["public/index.html"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: text + "\n<!-- promoted after all -->\n",  # a comment a code host hides
        lambda text: text + "\n[the real numbers](https://example.com/real)\n",  # an off-site link
    ],
)
def test_an_edited_markdown_source_fails_whatever_the_toolchain(run_cli, site_folder: Path, keypair, edit) -> None:
    _other_toolchain(site_folder, keypair[0])
    page = site_folder / MARKDOWN
    page.write_text(edit(page.read_text("utf-8")), "utf-8")
    result = run_cli("verify", site_folder, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL sources", result.out, re.M), result.out
    assert f"{page}: is not the file the signed statement records" in result.out


def test_an_added_source_fails(run_cli, site_folder: Path, keypair) -> None:
    _other_toolchain(site_folder, keypair[0])
    (site_folder / "site" / "extra.md").write_text("# Promoted\n", "utf-8")
    result = run_cli("verify", site_folder, "--key", keypair[1])
    assert result.code == 1 and f"{site_folder}/site/extra.md: is not among the sources the signed statement records" in result.out


def test_without_a_signed_record_the_sources_are_still_regenerated(run_cli, site_folder: Path, keypair) -> None:
    _other_toolchain(site_folder, keypair[0], **{SOURCES_FIELD: None})
    assert run_cli("verify", site_folder, "--key", keypair[1]).code == 0
    page = site_folder / MARKDOWN
    page.write_text(page.read_text("utf-8") + "\n<!-- promoted after all -->\n", "utf-8")
    result = run_cli("verify", site_folder, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL sources", result.out, re.M), result.out
    assert re.search(rf"^ +{re.escape(str(page))}:\d+: differs from what build writes from the published evidence$", result.out, re.M), result.out
