"""An evidence file's name is shown and linked on the artifacts page whatever characters it holds: a name is
the operator's (an arm's, a log's), and a link must lead to the file it names."""

from __future__ import annotations

import shutil
import urllib.parse
from pathlib import Path

import pytest

from evidence_kit.attest.manifest import write_manifest
from evidence_kit.publish import build_site

from ..conftest import REPO

pytestmark = pytest.mark.slow

DECISION = "2026-11-01-reference-reconstruction"


def _built_with_a_log_named(tmp_path: Path, name: str) -> str:
    decision = Path(shutil.copytree(REPO / "evidence" / DECISION, tmp_path / "decision"))
    trial = sorted(decision.rglob("trial.json"))[0].parent
    (trial / "logs").mkdir(exist_ok=True)
    (trial / "logs" / name).write_text("engine says hi\n")
    for folder in (trial, decision):
        write_manifest(folder)
    build_site([decision], tmp_path / "site")
    return (tmp_path / "site" / "public" / "decisions" / DECISION / "artifacts.html").read_text()


@pytest.mark.parametrize("name", ["`code` | cell.log", "two\nlines.log", "with space.log", "größer 🚀.log"])
def test_a_name_with_markdown_characters_links_to_its_file(tmp_path: Path, name: str) -> None:
    html = _built_with_a_log_named(tmp_path, name)
    trial = "cache-layout"
    assert f'href="evidence/{trial}/logs/{urllib.parse.quote(name)}"' in html, html
