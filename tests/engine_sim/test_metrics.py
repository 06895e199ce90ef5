"""/metrics parses with prometheus-client and its counters equal the usage the server returned."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from evidence_kit.engine_sim import running_simulator

from .conftest import FAST, chat_body

MODEL = "sim-org/sim-model-7b-simulated"


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    """Every sample of /metrics keyed by (sample name, sorted labels)."""
    text = httpx.get(url + "/metrics").text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for family in text_string_to_metric_families(text) for s in family.samples}


def total(samples: dict, name: str, **labels: str) -> float:
    return sum(v for (n, labelled), v in samples.items() if n == name and all(dict(labelled).get(k) == x for k, x in labels.items()))


async def _one(client: httpx.AsyncClient, i: int) -> dict:
    """A mix: streamed chat with usage, non-streamed chat, completions; returns the usage served."""
    if i % 3 == 0:
        body = chat_body(f"request {i}", stream=True, stream_options={"include_usage": True}, reasoning_effort="low")
        usage = None
        async with client.stream("POST", "/v1/chat/completions", json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: {") and '"usage":{' in line:
                    import json

                    usage = json.loads(line[6:])["usage"]
        return usage
    if i % 3 == 1:
        return (await client.post("/v1/chat/completions", json=chat_body(f"request {i}", max_tokens=30))).json()["usage"]
    body = {"model": MODEL, "prompt": f"complete {i}", "max_tokens": 16, "ignore_eos": i % 2 == 0}
    return (await client.post("/v1/completions", json=body)).json()["usage"]


async def _mix(url: str, n: int) -> list[dict]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        return await asyncio.gather(*(_one(client, i) for i in range(n)))


def test_counters_reconcile_exactly_with_served_usage():
    with running_simulator("original", time_scale=FAST) as url:
        before = scrape(url)
        usages = asyncio.run(_mix(url, 24))
        after = scrape(url)
    assert all(u is not None for u in usages)
    assert total(before, "vllm:prompt_tokens_total") == 0
    assert total(after, "vllm:prompt_tokens_total", model_name=MODEL) == sum(u["prompt_tokens"] for u in usages)
    assert total(after, "vllm:generation_tokens_total", model_name=MODEL) == sum(u["completion_tokens"] for u in usages)
    assert total(after, "vllm:request_success_total") == 24
    assert total(after, "vllm:request_success_total", finished_reason="abort") == 0
    assert total(after, "vllm:request_success_total", finished_reason="length") >= 4  # the ignore_eos completions
    assert total(after, "vllm:e2e_request_latency_seconds_count") == 24
    assert total(after, "vllm:time_to_first_token_seconds_count") == 24
    assert total(after, "vllm:request_generation_tokens_sum") == sum(u["completion_tokens"] for u in usages)
    assert total(after, "vllm:num_requests_running") == 0 and total(after, "vllm:num_requests_waiting") == 0
    assert total(after, "vllm:kv_cache_usage_perc") == 0
    # Exposed as vLLM exposes them, at zero: the simulated cache config has prefix caching off.
    assert total(after, "vllm:prefix_cache_queries_total", model_name=MODEL) == 0
    assert ("vllm:prefix_cache_hits_total", (("engine", "0"), ("model_name", MODEL))) in after


@pytest.mark.parametrize("profile, blocks", [("original", 1280), ("layout-candidate", 1774), ("dflash-candidate", 760)])
def test_cache_config_info_and_speculation_counters(profile, blocks):
    with running_simulator(profile, time_scale=FAST) as url:
        httpx.post(url + "/v1/chat/completions", json=chat_body(max_tokens=64, ignore_eos=True), timeout=30)
        samples = scrape(url)
    info = [dict(labels) for (name, labels), value in samples.items() if name == "vllm:cache_config_info" and value == 1]
    assert len(info) == 1
    assert int(info[0]["num_gpu_blocks"]) == blocks and info[0]["block_size"] == "16"
    assert info[0]["cache_dtype"] == "fp8"
    drafts = total(samples, "vllm:spec_decode_num_drafts_total")
    drafted = total(samples, "vllm:spec_decode_num_draft_tokens_total")
    accepted = total(samples, "vllm:spec_decode_num_accepted_tokens_total")
    assert drafts > 0 and drafted == 3 * drafts and 0 < accepted <= drafted
    # Each step yields one token plus the accepted drafts (the first token comes from prefill).
    assert total(samples, "vllm:generation_tokens_total") == 1 + drafts + accepted


def test_no_speculation_counters_without_speculation():
    from evidence_kit.engine_sim import configure_profile

    profile = configure_profile("original")
    profile = profile.model_copy(update={"speculation": profile.speculation.model_copy(update={"method": "none", "k": 0})})
    with running_simulator(profile, time_scale=FAST) as url:
        httpx.post(url + "/v1/chat/completions", json=chat_body(max_tokens=20, ignore_eos=True), timeout=30)
        samples = scrape(url)
    assert not any(name.startswith("vllm:spec_decode") for name, _ in samples)
    assert total(samples, "vllm:generation_tokens_total") == 20
