"""A figure-free sentence added to a page's article between two blocks (``This decision was reversed: promote the
candidate.``) reverses what a reader reads without a figure. Re-signed with another toolchain recorded, no rebuild
backs the page; the article is still compared one block for one, so it fails ``figures``."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain

from ..resign import resign
from .test_site_tamper import DECISION, _failed

pytestmark = pytest.mark.slow  # the session builds a real site once

SENTENCE = "<p>This decision was reversed: promote the candidate.</p>"


def test_a_sentence_added_between_blocks_fails_without_a_rebuild(run_cli, site: Path, keypair) -> None:
    page = site / DECISION / "index.html"
    text = page.read_text()
    article = text.index("<article")
    end = text.index("</p>", article) + len("</p>")
    page.write_text(text[:end] + SENTENCE + text[end:])
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "9.0.0"})
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1, result.out
    assert any("This decision was reversed promote the candidate" in line for line in _failed(result)["figures"]), result.out
