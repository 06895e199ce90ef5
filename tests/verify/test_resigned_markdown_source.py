"""The committed Markdown a code host renders (``SITE/site/…/index.md``) is what build writes, whatever toolchain
the site records. A key holder who edits it and signs again, with a sources record naming the edited file and a
record of another Material, skipped everything that compared it: the signed record then agrees with the edit."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from evidence_kit.attest.statement import SOURCES_FIELD
from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign, signed_predicate
from .test_signed_sources import MARKDOWN

pytestmark = pytest.mark.slow

SENTENCE = "\nThis decision was reversed: promote the candidate.\n"


def _resign_edited(site: Path, key: Path, **versions: str) -> Path:
    page = site / MARKDOWN
    page.write_text(page.read_text("utf-8") + SENTENCE, "utf-8")
    sources = dict(signed_predicate(site / "public")[SOURCES_FIELD])
    sources[MARKDOWN] = hashlib.sha256(page.read_bytes()).hexdigest()
    resign(site / "public", key, toolchain={**installed_toolchain(), **versions}, **{SOURCES_FIELD: sources})
    return page


def test_a_resigned_markdown_source_fails_with_another_material_recorded(run_cli, site_folder: Path, keypair) -> None:
    page = _resign_edited(site_folder, keypair[0], **{"mkdocs-material": "0.0.1"})
    result = run_cli("verify", site_folder, "--key", keypair[1])
    assert result.code == 1 and re.search(r"^FAIL sources", result.out, re.M), result.out
    assert re.search(rf"^ +{re.escape(str(page))}:\d+: differs from what build writes from the published evidence$", result.out, re.M), result.out


def test_a_resigned_markdown_source_recorded_with_another_jinja2_is_not_proven(run_cli, site_folder: Path, keypair) -> None:
    _resign_edited(site_folder, keypair[0], jinja2="3.0.0")
    result = run_cli("verify", site_folder, "--key", keypair[1])
    assert result.code == 1, result.out
    assert f"Markdown not proven: built with jinja2 3.0.0, installed {installed_toolchain()['jinja2']}" in result.out, result.out
