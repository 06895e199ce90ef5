"""The three shipped profiles under the reference page's workload shape, at toy scale.

For each profile: ~1.5K and ~6K input tokens (sized exactly with /tokenize), concurrency 1
and 4, four requests per run, three runs per group; reasoning requested, natural output,
4,096-token cap. Reports the engine-reported token slots (from ``vllm:cache_config_info``),
the median end-to-end and TTFT per group (modelled seconds: wall seconds × time scale), and
the speculative-decoding acceptance. The simulator runs as ``evidence-kit sim`` subprocesses.

    .venv/bin/python bench/sim_profiles.py [--time-scale 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evidence_kit.engine_sim import SHIPPED_PROFILES, simulator_process  # noqa: E402

INPUTS = (1500, 6000)
CONCURRENCY = (1, 4)
RUNS, PER_RUN = 3, 4


def sized_prompt(url: str, tokens: int, tag: str) -> str:
    """A unique prompt whose chat rendering is exactly ``tokens`` tokens."""
    head = f"Summarise in one line, request {tag}:"
    base = httpx.post(url + "/tokenize", json={"messages": [{"role": "user", "content": head}]}).json()["count"]
    text = head + " cache" * (tokens - base)
    count = httpx.post(url + "/tokenize", json={"messages": [{"role": "user", "content": text}]}).json()["count"]
    assert count == tokens, (count, tokens)
    return text


async def timed_request(client: httpx.AsyncClient, prompt: str) -> tuple[float, float]:
    body = {
        "messages": [{"role": "user", "content": prompt}],
        "stream": True,
        "max_tokens": 4096,
        "temperature": 0,
        "reasoning_effort": "high",
        "stream_options": {"include_usage": True},
    }
    start = time.perf_counter()
    first = None
    async with client.stream("POST", "/v1/chat/completions", json=body) as response:
        async for line in response.aiter_lines():
            if first is None and ('"reasoning"' in line or '"content":"' in line and '"content":""' not in line):
                first = time.perf_counter()
    return time.perf_counter() - start, (first or time.perf_counter()) - start


async def run_group(url: str, prompts: list[str], concurrency: int) -> list[tuple[float, float]]:
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        results: list[tuple[float, float]] = []
        for start in range(0, len(prompts), concurrency):
            results += await asyncio.gather(*(timed_request(client, p) for p in prompts[start : start + concurrency]))
        return results


def scrape(url: str) -> dict[str, float | dict]:
    out: dict[str, float | dict] = {}
    for family in text_string_to_metric_families(httpx.get(url + "/metrics").text):
        for sample in family.samples:
            if sample.name == "vllm:cache_config_info":
                out["slots"] = int(sample.labels["num_gpu_blocks"]) * int(sample.labels["block_size"])
            elif sample.name.startswith("vllm:spec_decode_num_") and sample.name.endswith("tokens_total"):
                out[sample.name] = sample.value
    return out


def bench_profile(name: str, scale: float) -> dict:
    with simulator_process(name, time_scale=scale) as url:
        groups = {}
        for size in INPUTS:
            for conc in CONCURRENCY:
                timings = []
                for run in range(RUNS):
                    prompts = [sized_prompt(url, size, f"{size}-{conc}-{run}-{i}") for i in range(PER_RUN)]
                    timings += asyncio.run(run_group(url, prompts, conc))
                groups[f"~{size}/C{conc}"] = {
                    "e2e_median_s": round(statistics.median(t[0] for t in timings) * scale, 3),
                    "ttft_median_s": round(statistics.median(t[1] for t in timings) * scale, 3),
                }
        metrics = scrape(url)
    drafted = metrics.get("vllm:spec_decode_num_draft_tokens_total", 0)
    accepted = metrics.get("vllm:spec_decode_num_accepted_tokens_total", 0)
    return {"profile": name, "token_slots": metrics["slots"], "groups": groups, "acceptance": round(accepted / drafted, 3) if drafted else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-scale", type=float, default=10.0)
    args = parser.parse_args()
    results = [bench_profile(name, args.time_scale) for name in SHIPPED_PROFILES]
    for result in results:
        print(json.dumps(result, sort_keys=True))
    base = results[0]
    groups = list(base["groups"])
    print("\n| profile | token slots | change | " + " | ".join(f"E2E {g}" for g in groups) + " | acceptance |")
    print("|---|---|---|" + "---|" * len(groups) + "---|")
    for r in results:
        change = r["token_slots"] / base["token_slots"] - 1
        cells = " | ".join(f"{r['groups'][g]['e2e_median_s']:.3f}" for g in groups)
        print(f"| {r['profile']} | {r['token_slots']:,} | {change:+.2%} | {cells} | {r['acceptance']} |")


if __name__ == "__main__":
    main()
