"""Real-engine tier: a small A/B/A trial against llama.cpp's own llama-server serving the tiny
random-weight model as GGUF, read in the ``llama.cpp`` dialect.

Needs the server and the GGUF model that ``tests/collect/realengine/setup_llamacpp.sh`` builds
(cached under ``$EVIDENCE_KIT_VLLM_HOME``, default ``~/.cache/evidence-kit``). Without them the
test is skipped, saying why; CI runs the setup script first. Each arm starts its own server (well
under a second for this model), so the whole trial takes seconds.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evidence_kit.analyze.trial import analyze_trial
from evidence_kit.collect import collect_trial
from evidence_kit.read import load_trial
from evidence_kit.redact import redact_bundle

from ..conftest import REPO
from ..redact.nothing_lost import assert_nothing_lost

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

HOME = Path(os.environ.get("EVIDENCE_KIT_VLLM_HOME", Path.home() / ".cache" / "evidence-kit"))
LLAMA_SERVER = HOME / "llama.cpp-11434.0.0" / "bin" / "llama-server"
TINY_GGUF = HOME / "tiny-llama.gguf"
STALE = "disconnected: RemoteProtocolError: Server disconnected without sending a response."


@pytest.mark.skipif(
    not (LLAMA_SERVER.exists() and TINY_GGUF.exists()), reason="llama.cpp tier not set up (run tests/collect/realengine/setup_llamacpp.sh)"
)
def test_small_trial_on_llamacpp_reconciles_its_tokens_and_says_what_it_cannot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLAMA_SERVER", str(LLAMA_SERVER))
    monkeypatch.setenv("TINY_GGUF", str(TINY_GGUF))
    result = collect_trial(REPO / "examples" / "plans" / "llamacpp.toml", tmp_path / "raw")
    evidence = load_trial(tmp_path / "raw")
    assert evidence.trial.engine_kind == "llama.cpp"
    for arm in evidence.arms:
        assert {c.name: c.ok for c in arm.checks}["engine-kind"]  # its /metrics holds llamacpp: series
        assert len(arm.timed) == evidence.trial.workload.planned_per_arm
        # The server's own fault (it closes a connection after each streamed reply, unannounced): a request
        # sent at once on it fails before any reply, never reaching the engine. Nothing else may fail.
        assert {r.error for r in arm.timed if not r.ok} <= {STALE} and sum(r.ok for r in arm.timed) >= 6
        assert (tmp_path / "raw" / "logs" / f"{Path(arm.ref.journal).stem}.log").stat().st_size > 0
        for run in arm.runs:
            timed = [r for r in arm.timed if r.run == run.run]
            counters = run.counters or {}
            # llama.cpp counts no requests: that counter is absent, not a mismatch; the tokens reconcile (over
            # the ok requests: one that failed before any reply was never counted by the engine either).
            assert "requests" not in counters and run.reconciled is True, (run.run, run.mismatches)
            generated, prompt, cached = (counters[k][1] - counters[k][0] for k in ("generation_tokens", "prompt_tokens", "prefix_cache_hits"))
            timed = [r for r in timed if r.ok]
            assert generated == sum(r.completion_tokens or 0 for r in timed) == 16 * len(timed)  # ignore_eos
            assert prompt == sum(r.prompt_tokens or 0 for r in timed)
            # The prompt tokens its slots reused, as each usage reports them and its counter adds them up.
            assert all(r.cached_tokens is not None for r in timed) and cached == sum(r.cached_tokens or 0 for r in timed)
    before, candidate, restored = evidence.arms
    # The server's "n_slots = 2, n_ctx_slot = C" line of each arm's own log (2 x 2048 cells, then 2 x 4096):
    # the candidate's context is twice. No llama_context line: this server logs it only with -lv 4.
    assert before.header.engine.kv_token_slots == 4096 == restored.header.engine.kv_token_slots
    assert candidate.header.engine.kv_token_slots == 8192
    assert {c.name: c.ok for c in restored.checks}["identity-equality"]
    analysis = analyze_trial(evidence)
    assert analysis.runs_reconciled == analysis.runs_total > 0
    # No timing histograms in llama.cpp's /metrics: the engine's own TTFT and E2E are not reconcilable, said so.
    for arm in analysis.arms:
        assert [(t.runs_compared, t.runs_not_reconcilable, t.runs_without_counters) for t in arm.timing] == [(0, arm.runs_total, 0)] * 2
    assert result.ok, result.problems
    # Nothing public is lost in redaction (issue 23): every number, timestamp, token count and date, field by field.
    redacted = redact_bundle(tmp_path / "raw", tmp_path / "bundle", key=b"fabricated-test-key-0123456789abcdef")
    assert redacted.publishable, [str(f) for f in redacted.findings]
    assert assert_nothing_lost(tmp_path / "raw", redacted.out) > 100
