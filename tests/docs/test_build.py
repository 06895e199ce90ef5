"""The project's documentation builds as a site with `mkdocs build --strict`: every page in the nav, every
link and anchor found, no warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

CONFIG = REPO / "mkdocs.docs.yml"


def _nav_pages(nav: list) -> list[str]:
    pages: list[str] = []
    for item in nav:
        for value in item.values():
            pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_of_docs_is_in_the_nav() -> None:
    config = yaml.load(CONFIG.read_text(), Loader=yaml.Loader)  # noqa: S506 (our own file; the toc's slugify is a python tag)
    pages = set(_nav_pages(config["nav"]))
    docs = {str(p.relative_to(REPO / "docs")) for p in (REPO / "docs").rglob("*.md")}
    assert docs == pages, f"in docs/ but not the nav: {sorted(docs - pages)}; in the nav, no file: {sorted(pages - docs)}"


@pytest.mark.slow  # one MkDocs build of every page
def test_the_docs_build_strict(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).parent / "mkdocs"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "-f", str(CONFIG), "-d", str(tmp_path / "built")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "built" / "tutorial.html").is_file()
