"""A signed site whose journals carry the engine's timing histograms: a re-signed edit of a timing
figure (analysis.json or the page) must fail the figures check."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle
from tests.resign import resign
from tests.verify.test_site_tamper import DECISION, _failed, _verify

pytestmark = pytest.mark.slow


def _with_histograms(raw: Path) -> None:
    for path in sorted(raw.rglob("journals/*.jsonl")):
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        for rec in lines:
            if rec["type"] != "run":
                continue
            ok = [r for r in lines if r["type"] == "request" and r["run"] == rec["run"] and not r["warmup"] and r["ok"]]
            counters = dict(rec.get("counters") or {})
            for metric, name, less in (("ttft_s", "ttft", 0.002), ("e2e_s", "e2e", 0.004)):
                have = [r[metric] for r in ok if r.get(metric) is not None]
                counters[f"{name}_seconds_sum"] = [10.0, 10.0 + math.fsum(have) - less * len(have)]
                counters[f"{name}_seconds_count"] = [7.0, 7.0 + len(have)]
            rec["counters"] = counters
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.fixture(scope="module")
def timing_site(tmp_path_factory: pytest.TempPathFactory, keypair) -> Path:
    base = tmp_path_factory.mktemp("timing-site")
    raw = write_reference_decision(base / "raw")
    _with_histograms(raw)
    redacted = redact_bundle(raw, base / "decision", key=b"verify-tests-key-0123456789abcdef").out
    out = base / "site"
    build_site([redacted], out, sign_key=keypair[0])
    return out / "public"


def test_the_timing_site_verifies(run_cli, timing_site: Path, keypair) -> None:
    result = _verify(run_cli, timing_site, "--key", keypair[1])
    assert result.code == 0, result.out


def test_a_resigned_gap_in_analysis_json_fails(run_cli, timing_site: Path, keypair, tmp_path: Path) -> None:
    import shutil

    site = Path(shutil.copytree(timing_site, tmp_path / "public"))
    path = site / DECISION / "analysis.json"
    doc = json.loads(path.read_text())
    gap = doc["trials"][0]["runs"][0]["timing"][1]
    assert gap["status"] == "compared"
    gap["gap_ms"] += 1e-9
    doc["trials"][0]["arms"][0]["timing"][1]["largest_gap_ms"] = -doc["trials"][0]["arms"][0]["timing"][1]["largest_gap_ms"]
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    resign(site, keypair[0])
    result = _verify(run_cli, site, "--key", keypair[1])
    assert result.code == 1 and set(_failed(result)) == {"figures"}, result.out


def test_a_resigned_timing_cell_on_the_page_fails(run_cli, timing_site: Path, keypair, tmp_path: Path) -> None:
    import shutil

    site = Path(shutil.copytree(timing_site, tmp_path / "public"))
    pages = [p for p in site.rglob("*.html") if "+4.0 ms" in p.read_text()]
    assert pages
    page = pages[0]
    page.write_text(page.read_text().replace("+4.0 ms", "+0.4 ms", 1))
    resign(site, keypair[0])
    result = _verify(run_cli, site, "--key", keypair[1])
    assert result.code == 1 and set(_failed(result)) == {"figures"}, result.out
