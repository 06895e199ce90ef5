"""A statistics v4 decision builds a site that verifies; its v4 figures and its version are recomputed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence_kit.attest.statement import folder_predicate
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle

from ..resign import resign
from .test_site_tamper import _failed, _verify

pytestmark = pytest.mark.slow  # builds and verifies a whole site

V4 = "decisions/2026-12-04-v4"


@pytest.fixture(scope="module")
def v4_master(tmp_path_factory: pytest.TempPathFactory, keypair) -> Path:
    base = tmp_path_factory.mktemp("v4")
    raw = base / "raw"
    raw.mkdir()
    aba = {**{g: (2.0, 2.0, 2.0) for g in GROUPS}, (8192, 1): (2.0, 1.75, 2.0), (8192, 4): (2.0, 1.5, 2.0)}
    write_trial_bundle(raw, "v4-aba", {**REFERENCE_TRIALS["cache-layout"], "title": "v4 A/B/A", "e2e": aba}, rule={"statistics": 4})
    ababa = {g: (2.0, 1.632, 2.08, 1.696, 2.16) for g in GROUPS}
    spec = {**REFERENCE_TRIALS["dflash"], "title": "v4 A/B/A/B/A", "e2e": ababa, "slots": tuple([1330579] * 5)}
    write_trial_bundle(raw, "v4-ababa", spec, design="ABABA", rule={"statistics": 4})
    (raw / "decision.toml").write_text('id = "2026-12-04-v4"\ndate = "2026-12-04"\ntitle = "Statistics v4"\ntrials = ["v4-aba", "v4-ababa"]\n')
    decision = redact_bundle(raw, base / "decision", key=b"verify-tests-key-0123456789abcdef").out
    build_site([decision], base / "site", sign_key=keypair[0])
    return base / "site" / "public"


@pytest.fixture
def v4_site(tmp_path: Path, v4_master: Path) -> Path:
    return Path(shutil.copytree(v4_master, tmp_path / "public", symlinks=True))


def test_a_v4_site_verifies_and_is_signed_as_v4(run_cli, v4_site: Path, keypair) -> None:
    result = _verify(run_cli, v4_site, "--key", keypair[1])
    assert result.code == 0, result.out
    doc = json.loads((v4_site / V4 / "analysis.json").read_text())
    assert doc["definitions"]["version"] == "evidence-kit/statistics/v4"
    assert [g["verdict"]["verdict"] for g in doc["trials"][0]["groups"]][:2] == ["likely", "win"]


def test_a_likely_verdict_published_as_a_win_is_caught(run_cli, v4_site: Path, keypair) -> None:
    target = v4_site / V4 / "analysis.json"
    doc = json.loads(target.read_text())
    doc["trials"][0]["groups"][0]["verdict"]["verdict"] = "win"
    target.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    resign(v4_site, keypair[0])
    failed = _failed(_verify(run_cli, v4_site, "--key", keypair[1]))
    assert f"{target}: trials[0].groups[0].verdict.verdict: published win, recomputed likely" in failed["figures"]


def test_the_signed_statement_names_v4_and_the_reference_site_v3(v4_master: Path, site_master: Path) -> None:
    assert folder_predicate(v4_master)["statistics"] == "evidence-kit/statistics/v4"
    assert folder_predicate(site_master / "public")["statistics"] == "evidence-kit/statistics/v3"  # no trial declares a version
