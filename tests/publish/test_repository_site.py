"""This repository's own site: `site/` and `mkdocs.yml` are what `build evidence/* --out .` writes,
and `mkdocs build --strict` builds them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_kit.publish import load_decisions
from evidence_kit.render import docs_files

from ..conftest import REPO

pytestmark = pytest.mark.slow
REBUILD = "evidence-kit build evidence/*/ --out ."


def test_committed_site_is_what_build_writes() -> None:
    decisions = sorted(p for p in (REPO / "evidence").iterdir() if (p / "decision.toml").is_file())
    assert decisions, "evidence/ holds no decision folder"
    want = docs_files(load_decisions(decisions))
    have = {p.relative_to(REPO).as_posix(): p.read_bytes() for p in (REPO / "site").rglob("*") if p.is_file()}
    have["mkdocs.yml"] = (REPO / "mkdocs.yml").read_bytes()
    stale = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
    assert not stale, f"site/ is stale ({stale[:5]}...); run `{REBUILD}`"


def test_repository_mkdocs_builds_strict(tmp_path: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "public")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "public" / "decisions").is_dir()
