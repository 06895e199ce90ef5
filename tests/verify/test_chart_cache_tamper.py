"""A chart that reaches a signed site from a tampered chart cache (an entry rewritten whole, its digest
recomputed, so the cache cannot tell) fails verify: verify draws every chart afresh, and compares the published
SVGs with it in ``figures`` (whatever toolchain is recorded) and the committed ``site/`` copies in ``sources``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.publish import build_site
from evidence_kit.render import chart_cache
from evidence_kit.render.chart_cache import ChartCache

pytestmark = pytest.mark.slow  # two real builds and a rebuild (MkDocs, charts)


def _forge(entry_path: Path) -> None:
    entry = json.loads(entry_path.read_bytes())
    for chart in entry["charts"]:
        chart["svg"] = chart["svg"].replace("</svg>", '<text x="0" y="9">0.5</text></svg>', 1)
    entry["sha256"] = chart_cache._digest(entry["charts"])
    entry_path.write_text(json.dumps(entry))


def test_a_forged_cache_entry_fails_the_rebuild(run_cli, redacted_master: Path, keypair, tmp_path: Path) -> None:
    cache = tmp_path / "charts"
    build_site([redacted_master], tmp_path / "first", charts=ChartCache(cache))
    entries = sorted(cache.glob("*/*.json"))
    assert entries
    for path in entries:
        _forge(path)
    forged = ChartCache(cache)
    build_site([redacted_master], tmp_path / "site", sign_key=keypair[0], charts=forged)
    assert forged.hits == len(entries)  # the forgery was read back: only verify can catch it
    result = run_cli("verify", tmp_path / "site", "--key", keypair[1])
    assert result.code == 1, result.out
    failed = [line.split()[1] for line in result.out.splitlines() if line.startswith("FAIL ")]
    assert failed == ["figures", "sources"], result.out
    assert "public/decisions/2026-11-01-reference-reconstruction/cache-layout/intervals.svg: (chart bytes)" in result.out, result.out
    assert "site/decisions/2026-11-01-reference-reconstruction/cache-layout/intervals.svg:1: differs" in result.out, result.out
