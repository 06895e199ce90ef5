"""Builds that share one chart cache: started together over an empty cache, each writes the site a build
without a cache writes, and the entries they leave are whole."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_kit.render.chart_cache import CACHE_ENV, ChartCache


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def _build(bundle: Path, out: Path, cache: str) -> subprocess.Popen[str]:
    env = dict(os.environ, **{CACHE_ENV: cache})
    return subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "build", str(bundle), "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_builds_started_together_on_one_empty_cache_write_the_uncached_site(reference_bundle: Path, tmp_path: Path) -> None:
    cache = tmp_path / "shared-cache"
    together = [_build(reference_bundle, tmp_path / f"site-{n}", str(cache)) for n in range(2)]
    alone = _build(reference_bundle, tmp_path / "uncached", "off")
    for proc in [*together, alone]:
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err
    uncached = _tree(tmp_path / "uncached")
    assert _tree(tmp_path / "site-0") == uncached
    assert _tree(tmp_path / "site-1") == uncached
    entries = sorted(cache.glob("*/*.json"))
    assert entries and not list(cache.glob("*/.*")), "a temporary file was left behind"
    for path in entries:
        assert ChartCache._read(path, json.loads(path.read_bytes())["key"]) is not None, f"{path.name} is not a whole entry"
