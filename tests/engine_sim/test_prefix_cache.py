"""The simulator's prefix cache: block hashes, sharing, LRU eviction, and a pool whose size decides the hits."""

from __future__ import annotations

import random

import httpx
import pytest

from evidence_kit.collect.metrics import parse_metrics
from evidence_kit.engine_sim import configure_profile, start_simulator
from evidence_kit.engine_sim.engine import Engine, Sequence
from evidence_kit.engine_sim.generation import PlanRequest, plan_output, request_rng
from evidence_kit.engine_sim.prefix_cache import PrefixCache, block_hashes
from evidence_kit.engine_sim.profile import Profile
from evidence_kit.model.dialects import DIALECTS

from .conftest import FAST, chat_body, parse_chunks, stream_events


def caching(name: str) -> Profile:
    return configure_profile(name, prefix_caching=True)


def test_a_block_is_found_only_behind_the_same_prefix() -> None:
    a, b = block_hashes(list(range(40)), 16), block_hashes([99] + list(range(1, 40)), 16)
    assert len(a) == 2  # full blocks only: the last 8 tokens are no block
    assert a[0] != b[0] and a[1] != b[1]  # the second block's tokens are the same, its prefix is not
    cache = PrefixCache(16)
    cache.hold(a)
    assert cache.hit(a, 40) == 2 and cache.hit(b, 40) == 0
    assert cache.hit(a, 32) == 1  # at most the prompt less its last token: 31 tokens hold one whole block


def test_free_blocks_are_evicted_least_recently_used_the_tail_first() -> None:
    cache = PrefixCache(16)
    old, new = block_hashes(list(range(48)), 16), block_hashes(list(range(100, 148)), 16)
    cache.hold(old)
    cache.hold(new)
    assert cache.release(old[::-1]) == 3 and cache.release(new[::-1]) == 3
    cache.evict(1)  # the oldest prompt's last block goes first: its first two still hit
    assert cache.hit(old, 48) == 2 and cache.hit(new, 48) == 2
    cache.hold(old[:1])  # a hit takes a block out of the free list: it cannot be evicted while held
    cache.evict(4)
    assert cache.hit(old, 48) == 1 and cache.hit(new, 48) == 0 and cache.in_use == 1


def _modelled_hit_rate(profile: Profile, *, prefix: int, suffix: int, prefixes: int, concurrency: int, requests: int) -> float:
    """Closed loop in modelled time over requests that open with one of ``prefixes`` shared prefixes."""
    now = [0.0]
    engine = Engine(profile, clock=lambda: now[0])
    rng = random.Random(1)
    order = list(range(prefixes)) + [rng.randrange(prefixes) for _ in range(requests)]  # primed, then drawn
    live: list[Sequence] = []

    def submit(i: int) -> None:
        ids = tuple(100_000 * (order[i] + 1) + k for k in range(prefix)) + tuple(10**8 + 10**5 * i + k for k in range(suffix))
        plan = plan_output(PlanRequest(prompt=f"r{i}", max_tokens=64, ignore_eos=True), profile.output, profile.seed)
        seq = Sequence(f"r{i}", prefix + suffix, plan, spec_rng=request_rng("accept", i), arrival=now[0], prompt_ids=ids)
        engine.submit(seq)
        live.append(seq)

    sent = 0
    while sent < len(order) or engine.running or engine.waiting:
        width = 1 if sent < prefixes else concurrency  # the primes one at a time
        while sent < len(order) and len(engine.running) + len(engine.waiting) < width:
            submit(sent)
            sent += 1
        admitted, seconds = engine.start_step()
        now[0] += seconds
        engine.finish_step(admitted)
    timed = live[prefixes:]
    assert all(s.finished for s in live) and engine.used_blocks == 0
    return sum(s.cached_tokens or 0 for s in timed) / sum(s.prompt_tokens for s in timed)


def test_a_pool_with_more_kv_slots_keeps_more_long_prefixes_hot_at_high_concurrency() -> None:
    shape = {"prefix": 4096, "suffix": 1024, "prefixes": 5, "concurrency": 4, "requests": 24}
    original = _modelled_hit_rate(caching("original"), **shape)
    layout = _modelled_hit_rate(caching("layout-candidate"), **shape)
    assert layout > original + 0.1 and layout <= 4096 / 5120
    # Prefixes that fit in both pools hit alike: the pool's size is what the difference comes from.
    small = {**shape, "prefix": 1024, "prefixes": 2}
    assert _modelled_hit_rate(caching("original"), **small) == _modelled_hit_rate(caching("layout-candidate"), **small)


@pytest.mark.parametrize("dialect", ["vllm", "sglang", "llama.cpp"])
def test_cached_tokens_in_usage_are_what_the_counters_count_in_every_dialect(dialect: str) -> None:
    server = start_simulator(configure_profile("original", prefix_caching=True, dialect=dialect), time_scale=FAST)
    try:
        shared = " ".join(["model cache layout request"] * 100)
        cached = []
        for tail in ("first answer", "second answer", "third answer"):
            body = chat_body(f"{shared} {tail}", max_tokens=4, stream_options={"include_usage": True})
            usage = parse_chunks(stream_events(server.url, body))[-1]["usage"]
            cached.append(usage["prompt_tokens_details"]["cached_tokens"])
        assert cached[0] == 0 and cached[1] == cached[2] > 380 and cached[1] % 16 == 0
        counters = parse_metrics(httpx.get(server.url + "/metrics").text, DIALECTS[dialect]).counters()
        assert counters["prefix_cache_hits"] == sum(cached)
        assert ("prefix_cache_queries" in counters) == (dialect == "vllm")
    finally:
        server.stop()


def test_without_prefix_caching_usage_reports_no_cached_tokens(sim) -> None:
    body = chat_body(max_tokens=4, stream_options={"include_usage": True})
    usage = parse_chunks(stream_events(sim.url, body))[-1]["usage"]
    assert usage["prompt_tokens_details"] is None
