"""The speculation model: what a step costs and yields, and the split it gives the DFlash candidate.

The engine-level tests run the engine's own scheduling in modelled time (``modelled.py``), so
they pin the model itself, free of wall-clock noise; the last test checks over HTTP that
speculation never changes what is produced.
"""

from __future__ import annotations

import asyncio
import random
import statistics

import httpx
import pytest

from evidence_kit.engine_sim import configure_profile, load_profile, running_simulator
from evidence_kit.engine_sim.profile import Profile
from evidence_kit.engine_sim.steps import (
    decode_speedup,
    decode_step_seconds,
    draft_seconds,
    draw_accepted,
    drift_factor,
    expected_tokens_per_step,
    target_seconds,
)

from .conftest import FAST, chat_body
from .modelled import median, p90, run_modelled

# Output lengths of three runs of four requests, like the demo's (~190 tokens, 114 to 256).
RUNS = [[188, 165, 201, 229], [188, 201, 141, 134], [199, 114, 125, 148]]


def _shipped(name: str) -> Profile:
    return configure_profile(name)


def _group(profile: Profile, prompt_tokens: int, concurrency: int):
    return [s for outputs in RUNS for s in run_modelled(profile, prompt_tokens, outputs, concurrency)]


def test_a_step_keeps_each_draft_in_turn():
    spec = load_profile("original").speculation  # k = 3, rate 0.70
    assert expected_tokens_per_step(spec) == pytest.approx(1 + 0.7 + 0.49 + 0.343)
    rng = random.Random(7)
    draws = [draw_accepted(spec, rng) for _ in range(20000)]
    assert statistics.mean(draws) == pytest.approx(expected_tokens_per_step(spec) - 1, abs=0.03)
    # The run stops at the first rejection: k accepted only k times in a row, a^k of the time.
    assert draws.count(3) / len(draws) == pytest.approx(0.343, abs=0.015)
    assert expected_tokens_per_step(spec.model_copy(update={"method": "none"})) == 1


def test_verification_is_free_while_memory_bound_and_costs_compute_beyond_the_roof():
    timing = load_profile("original").timing
    # One sequence scoring 1 + 3 tokens: the weights' read dominates, the three drafts cost nothing.
    assert target_seconds(timing, 1, 4) == target_seconds(timing, 1, 1) == timing.decode_base_s + timing.decode_per_seq_s
    # With cheap per-sequence reads, 64 sequences scoring 4 tokens each are compute-bound: 256 scored tokens.
    cheap = timing.model_copy(update={"decode_per_seq_s": 0.0})
    assert target_seconds(cheap, 64, 64) == timing.decode_base_s
    assert target_seconds(cheap, 64, 256) == pytest.approx(256 * timing.verify_per_token_s)
    assert 256 * timing.verify_per_token_s > timing.decode_base_s
    # So speculation's speed-up shrinks as the batch grows past the roof, until it costs more than it yields.
    profile = load_profile("original").model_copy(update={"timing": cheap})
    assert decode_speedup(profile, 1) > 2 > decode_speedup(profile, 100) > 1 > decode_speedup(profile, 256)


def test_drafting_with_a_separate_draft_model_grows_with_the_batch():
    original, dflash = _shipped("original"), _shipped("dflash-candidate")
    # The MTP head's KV is part of the target's: k passes of a fixed cost, whatever the batch.
    assert draft_seconds(original, 1) == draft_seconds(original, 8) == pytest.approx(3 * 0.0006)
    # The draft model reads its own KV per sequence in each pass, priced by its bytes per token.
    per_seq = dflash.timing.decode_per_seq_s * 5600 / 8192
    assert draft_seconds(dflash, 4) - draft_seconds(dflash, 1) == pytest.approx(3 * 3 * per_seq)
    assert draft_seconds(dflash, 0) == 0


def test_dflash_decodes_faster_alone_and_slower_in_a_batch_of_four():
    original, dflash = _shipped("original"), _shipped("dflash-candidate")

    def per_token(profile: Profile, batch: int) -> float:
        return decode_step_seconds(profile, batch, batch) / expected_tokens_per_step(profile.speculation)

    assert per_token(dflash, 1) < 0.85 * per_token(original, 1)
    assert per_token(dflash, 4) > 1.05 * per_token(original, 4)
    assert decode_speedup(dflash, 1) > decode_speedup(original, 1) and decode_speedup(dflash, 4) < decode_speedup(original, 4)


@pytest.mark.parametrize("prompt_tokens", [1024, 4096])
def test_dflash_is_faster_at_concurrency_one(prompt_tokens):
    original = _group(_shipped("original"), prompt_tokens, 1)
    dflash = _group(_shipped("dflash-candidate"), prompt_tokens, 1)
    ratio = median([s.e2e for s in dflash]) / median([s.e2e for s in original])
    assert 0.65 < ratio < 0.85, ratio
    assert all(s.queued == 0 for s in dflash + original)


def test_dflash_queues_for_kv_blocks_at_concurrency_four_with_long_prompts():
    original = _group(_shipped("original"), 4096, 4)
    dflash = _group(_shipped("dflash-candidate"), 4096, 4)
    # The original's 20,480 slots hold all four ~4.3K-token requests; DFlash's 12,160 hold two.
    assert all(s.queued == 0 for s in original)
    assert sum(1 for s in dflash if s.queued > 0) == 6
    assert p90([s.ttft for s in dflash]) > 1.5 * p90([s.ttft for s in original])
    assert median([s.e2e for s in dflash]) > 0.9 * median([s.e2e for s in original])
    # With short prompts nothing queues, and the larger batch's drafting makes DFlash no faster.
    short_original, short_dflash = _group(_shipped("original"), 1024, 4), _group(_shipped("dflash-candidate"), 1024, 4)
    assert all(s.queued == 0 for s in short_dflash)
    assert median([s.e2e for s in short_dflash]) > median([s.e2e for s in short_original])


def test_every_planned_token_comes_out_once():
    for name in ("original", "dflash-candidate"):
        for served in _group(_shipped(name), 1024, 4):
            assert served.tokens == served.planned


def _drifting(name: str, drift: float) -> Profile:
    profile = _shipped(name)
    return profile.model_copy(update={"timing": profile.timing.model_copy(update={"drift": drift})})


def test_drift_is_small_seeded_and_changes_by_busy_period():
    assert all(0 < _shipped(name).timing.drift <= 0.05 for name in ("original", "layout-candidate", "dflash-candidate"))
    profile, still = _drifting("original", 0.03), _drifting("original", 0.0)
    factors = [drift_factor(profile, period) for period in range(200)]
    assert all(1 <= f < 1.03 for f in factors) and max(factors) > 1.02
    assert len(set(factors)) == 200 and factors == [drift_factor(profile, period) for period in range(200)]
    assert drift_factor(_drifting("dflash-candidate", 0.03), 0) != factors[0]  # another profile drifts its own way
    assert drift_factor(still, 5) == 1.0

    # Identical requests one at a time, without speculation so nothing else varies: without drift each
    # takes exactly as long; with it they differ by less than 3%, the same way each time the profile runs.
    def plain(p: Profile) -> Profile:
        return p.model_copy(update={"speculation": p.speculation.model_copy(update={"method": "none"})})

    drifted = [s.e2e for s in run_modelled(plain(profile), 1024, [190] * 8, 1)]
    steady = [s.e2e for s in run_modelled(plain(still), 1024, [190] * 8, 1)]
    assert all(e == pytest.approx(steady[0], rel=1e-9) for e in steady)
    assert max(drifted) / min(drifted) > 1.005 and all(1 <= d / steady[0] < 1.03 for d in drifted)
    assert drifted == [s.e2e for s in run_modelled(plain(profile), 1024, [190] * 8, 1)]


async def _complete(url: str, bodies: list[dict]) -> list[tuple[dict, dict]]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        replies = await asyncio.gather(*(client.post("/v1/chat/completions", json=b) for b in bodies))
    return [(r.json()["choices"][0]["message"], r.json()["usage"]) for r in replies]


def test_speculation_does_not_change_what_is_produced():
    # Temperature 0: drafting changes when tokens come out, never which tokens.
    bodies = [chat_body(f"Describe run {i} of the trial.", reasoning_effort="high", max_tokens=256, temperature=0, seed=i) for i in range(6)]
    outputs = {}
    for name in ("original", "dflash-candidate", "layout-candidate"):
        with running_simulator(name, time_scale=FAST) as url:
            outputs[name] = asyncio.run(_complete(url, bodies))
    assert outputs["dflash-candidate"] == outputs["original"] == outputs["layout-candidate"]
    assert all(usage["completion_tokens"] > 1 for _, usage in outputs["original"])
