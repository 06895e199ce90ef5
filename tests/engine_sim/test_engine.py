"""The modelled engine: queueing, the KV pool, profiles' slots, determinism, the tokenizer."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.engine_sim import TOKENIZER, Profile, configure_profile, load_profile, running_simulator, startup_log

from .conftest import FAST, chat_body


def _with(profile_name: str, **sections: dict) -> Profile:
    """A shipped profile with some fields changed, validated like a profile file."""
    data = configure_profile(profile_name).model_dump()
    for name, values in sections.items():
        data[name].update(values)
    return Profile.model_validate(data)


async def _concurrent(url: str, bodies: list[dict]) -> list[dict]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        responses = await asyncio.gather(*(client.post("/v1/chat/completions", json=b) for b in bodies))
    return [r.json() for r in responses]


def _truth(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_requests_beyond_max_num_seqs_wait_in_the_queue(tmp_path):
    profile = _with("original", scheduler={"max_num_seqs": 2})
    truth = tmp_path / "truth.jsonl"
    # At 10x each request holds its slot ~50 ms, far longer than the six take to arrive.
    with running_simulator(profile, time_scale=10, ground_truth=truth) as url:
        asyncio.run(_concurrent(url, [chat_body(f"q{i}", max_tokens=100, ignore_eos=True) for i in range(6)]))
        samples = httpx.get(url + "/metrics").text
    records = _truth(truth)
    assert len(records) == 6
    waited = [r for r in records if any(o["finished"] <= r["admitted"] for o in records if o is not r)]
    assert len(waited) == 4, "six requests, two slots: four are admitted only when another finishes"
    assert "vllm:request_queue_time_seconds_count" in samples
    # Never more than two sequences held slots at once.
    spans = [(r["admitted"], r["finished"]) for r in records]
    for start, _ in spans:
        assert sum(1 for a, b in spans if a <= start < b) <= 2


def test_requests_wait_when_the_kv_pool_is_full(tmp_path):
    # 256 blocks of 16 = 4,096 token slots: one ~2,500-token request fits, two do not.
    profile = _with("original", kv_cache={"budget_bytes": 256 * 16 * 8192}, scheduler={"max_model_len": 4096})
    assert profile.token_slots == 4096
    prompt = " ".join(["cache"] * 2500)
    truth = tmp_path / "truth.jsonl"
    with running_simulator(profile, time_scale=FAST, ground_truth=truth) as url:
        replies = asyncio.run(_concurrent(url, [chat_body(prompt + f" {i}", max_tokens=50, ignore_eos=True) for i in range(3)]))
    assert all(r["usage"]["completion_tokens"] == 50 for r in replies)
    records = sorted(_truth(truth), key=lambda r: r["admitted"])
    for earlier, later in zip(records, records[1:]):
        assert later["admitted"] >= earlier["finished"], "a sequence is admitted only after the pool frees"


def test_waiting_gauge_shows_the_queue_while_it_exists():
    profile = _with("original", scheduler={"max_num_seqs": 1})
    with running_simulator(profile, time_scale=1) as url:  # real time: each request takes ~0.5 s

        async def scenario() -> list[float]:
            async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                tasks = [
                    asyncio.create_task(client.post("/v1/chat/completions", json=chat_body(f"w{i}", max_tokens=100, ignore_eos=True)))
                    for i in range(3)
                ]
                await asyncio.sleep(0.2)
                text = (await client.get("/metrics")).text
                await asyncio.gather(*tasks)
            return [
                float(line.rsplit(" ", 1)[1])
                for line in text.splitlines()
                if line.startswith(("vllm:num_requests_waiting{", "vllm:num_requests_running{"))
            ]

        running, waiting = asyncio.run(scenario())
    assert running == 1 and waiting == 2


def test_profiles_show_the_reference_slot_changes():
    original, layout, dflash = (load_profile(n) for n in ("original", "layout-candidate", "dflash-candidate"))
    assert layout.token_slots / original.token_slots - 1 == pytest.approx(0.386, abs=0.005)
    assert dflash.token_slots / original.token_slots - 1 == pytest.approx(-0.406, abs=0.005)
    # Same byte budget; the layout candidate changes nothing about speed, DFlash brings its own draft.
    assert layout.kv_cache.budget_bytes == original.kv_cache.budget_bytes == dflash.kv_cache.budget_bytes
    assert layout.timing == original.timing and layout.speculation == original.speculation
    assert original.speculation.method == "mtp" and original.speculation.k == 3
    assert dflash.speculation.method == "draft_model" and dflash.speculation.k == 3
    assert dflash.speculation.draft_kv_dtype == "bf16" and layout.scheduler.max_model_len > original.scheduler.max_model_len
    log = "\n".join(startup_log(dflash, 1.0))
    assert f"GPU KV cache size: {dflash.token_slots:,} tokens" in log and f"# GPU blocks: {dflash.num_gpu_blocks}" in log


def test_same_seed_same_output_and_prompt_changes_it():
    bodies = [
        chat_body("alpha", reasoning_effort="low"),
        chat_body("beta", reasoning_effort="low"),
        chat_body("alpha", reasoning_effort="low", seed=7),
    ]
    runs = []
    for _ in range(2):
        with running_simulator("dflash-candidate", time_scale=FAST) as url:
            replies = asyncio.run(_concurrent(url, bodies))
            runs.append([(r["choices"][0]["message"], r["usage"]) for r in replies])
    assert runs[0] == runs[1]
    assert runs[0][0] != runs[0][1] and runs[0][0] != runs[0][2]


def test_min_tokens_and_natural_lengths_vary_by_prompt(sim):
    natural = {httpx.post(sim.url + "/v1/chat/completions", json=chat_body(f"p{i}")).json()["usage"]["completion_tokens"] for i in range(8)}
    assert len(natural) > 3, "natural output length depends on the prompt"
    fixed = httpx.post(sim.url + "/v1/chat/completions", json=chat_body("p0", min_tokens=300, max_tokens=900)).json()
    assert fixed["usage"]["completion_tokens"] == 300 and fixed["choices"][0]["finish_reason"] == "stop"


def test_ground_truth_events_match_the_stream(tmp_path):
    truth = tmp_path / "truth.jsonl"
    with running_simulator("original", time_scale=FAST, ground_truth=truth) as url:
        with httpx.stream(
            "POST", url + "/v1/chat/completions", json=chat_body(stream=True, reasoning_effort="low", stream_options={"include_usage": True})
        ) as r:
            events = [line for line in r.iter_lines() if line.startswith("data: ")]
    (record,) = _truth(truth)
    kinds = [kind for _, kind, _ in record["events"]]
    assert kinds[0] == "role" and kinds[-2:] == ["usage", "done"] and len(kinds) == len(events)
    times = [t for t, _, _ in record["events"]]
    assert record["arrival"] <= record["admitted"] <= record["first_token"] <= times[1] and times == sorted(times)
    assert sum(n for _, _, n in record["events"]) == record["completion_tokens"]
    assert record["finish_reason"] == "stop" and record["fault"] is None


def test_identity_overrides_reach_models_version_and_metrics(monkeypatch):
    monkeypatch.setenv("EVIDENCE_KIT_SIM_HOST", "canary-host-7f3a.example")
    with running_simulator("original", time_scale=FAST, identity={"served_model_name": "canary/model-91c2"}) as url:
        assert httpx.get(url + "/v1/models").json()["data"][0]["id"] == "canary/model-91c2"
        assert httpx.get(url + "/version").json()["host"] == "canary-host-7f3a.example"
        assert 'model_name="canary/model-91c2"' in httpx.get(url + "/metrics").text
        reply = httpx.post(url + "/v1/chat/completions", json=chat_body(model="canary/model-91c2", max_tokens=3))
        assert reply.json()["model"] == "canary/model-91c2"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_tokenizer_round_trips_any_text(text):
    ids = TOKENIZER.encode(text)
    assert TOKENIZER.decode(ids) == text
    assert len(ids) == TOKENIZER.count(text)


def test_tokenize_and_detokenize_endpoints(sim):
    text = "Prompts of 6,065 tokens — exactly sized. Ünïcode too."
    tokenized = httpx.post(sim.url + "/tokenize", json={"prompt": text}).json()
    assert tokenized["count"] == len(tokenized["tokens"]) == TOKENIZER.count(text)
    assert httpx.post(sim.url + "/detokenize", json={"tokens": tokenized["tokens"]}).json()["prompt"] == text
    assert httpx.post(sim.url + "/detokenize", json={"tokens": [-1]}).status_code == 400
