"""Prometheus parsing and reconciliation; prompt text and sizing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from evidence_kit.collect.metrics import kv_token_slots, parse_metrics, reconcile
from evidence_kit.collect.prompts import Calibration, PromptBook

METRICS = """\
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{finished_reason="stop",model_name="m"} 10.0
vllm:request_success_total{finished_reason="length",model_name="m"} 2.0
vllm:request_success_total{finished_reason="abort",model_name="m"} 3.0
# HELP vllm:request_success_created Count of successfully processed requests.
# TYPE vllm:request_success_created gauge
vllm:request_success_created{finished_reason="stop",model_name="m"} 1.7e+09
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m"} 5000.0
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m"} 700.0
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 3.0
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",num_gpu_blocks="83161",cache_dtype="fp8"} 1.0
"""


def test_counters_are_summed_across_labels_and_created_and_aborted_are_skipped() -> None:
    scraped = parse_metrics(METRICS)
    assert scraped.counters() == {"requests": 12.0, "prompt_tokens": 5000.0, "generation_tokens": 700.0}
    assert scraped.gauges()["running"] == 3.0
    assert not any(name.endswith("_created") for name in scraped.values)


def test_kv_capacity_is_blocks_times_block_size() -> None:
    assert kv_token_slots(parse_metrics(METRICS)) == 83161 * 16 == 1330576


def test_kv_capacity_prefers_the_reported_token_count() -> None:
    # Recent vLLM labels the exact count its log line prints; blocks x block size rounds it down.
    with_label = METRICS.replace('cache_dtype="fp8"', 'cache_dtype="fp8",kv_cache_size_tokens="1330579"')
    assert kv_token_slots(parse_metrics(with_label)) == 1330579
    unset = METRICS.replace('cache_dtype="fp8"', 'cache_dtype="fp8",kv_cache_size_tokens="None"')
    assert kv_token_slots(parse_metrics(unset)) == 1330576


def test_reconcile_shows_each_mismatch() -> None:
    before = {"requests": 10.0, "prompt_tokens": 100.0, "generation_tokens": 50.0}
    after = {"requests": 12.0, "prompt_tokens": 300.0, "generation_tokens": 71.0}
    ok, counters, problems = reconcile(before, after, {"requests": 2, "prompt_tokens": 200, "generation_tokens": 20})
    assert ok is False and counters["generation_tokens"] == [50.0, 71.0]
    assert problems == ["generation_tokens: engine +21, client 20"]
    ok, _, problems = reconcile(before, after, {"requests": 2, "prompt_tokens": 200, "generation_tokens": 21})
    assert ok is True and problems == []
    assert reconcile({}, {}, {"requests": 0, "prompt_tokens": 0, "generation_tokens": 0})[0] is None


CAL = Calibration(method="tokenize", overhead_tokens=20, tokens_per_word=1.25)


def test_prompts_are_deterministic_and_unique_beyond_the_instruction() -> None:
    book = PromptBook("Summarise.", 7, CAL)
    again = PromptBook("Summarise.", 7, CAL)
    texts = [book.messages(f"r1-256-c4/{i}", 256)[0]["content"] for i in range(50)]
    assert texts == [again.messages(f"r1-256-c4/{i}", 256)[0]["content"] for i in range(50)]
    bodies = [t.split("\n\n", 1)[1] for t in texts]
    # No two prompts share even their first three body words (prefix caching cannot help any arm).
    assert len({" ".join(b.split()[:3]) for b in bodies}) == len(bodies)
    assert book.messages("warmup/0", 256) != book.messages("r1-256-c4/0", 256)


@given(st.integers(min_value=64, max_value=200_000))
def test_word_count_follows_the_calibration(target: int) -> None:
    words = CAL.words_for(target)
    assert abs(CAL.overhead_tokens + words * CAL.tokens_per_word - target) <= CAL.tokens_per_word


def test_the_shared_instruction_may_earn_whole_block_prefix_hits_and_no_more() -> None:
    from evidence_kit.collect.metrics import shared_prefix_hits

    # 24 shared tokens fill one 16-token block per request; a 128-token block none.
    assert shared_prefix_hits(10, 24, 16) == 160
    assert shared_prefix_hits(10, 24, 128) == 0
    assert shared_prefix_hits(10, 24, None) == 0
