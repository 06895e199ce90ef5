"""The simulator speaks vLLM's OpenAI-compatible protocol: httpx and the official client agree."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from evidence_kit.engine_sim import TOKENIZER

from .conftest import chat_body, parse_chunks, stream_events

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]},
    },
}


def test_health_models_version_name_the_simulated_model(sim):
    assert httpx.get(sim.url + "/health").status_code == 200
    models = httpx.get(sim.url + "/v1/models").json()
    assert models["object"] == "list"
    card = models["data"][0]
    assert card["id"] == "sim-org/sim-model-7b-simulated" and card["object"] == "model"
    assert card["max_model_len"] == 10240 and "simulated" in card["root"]
    version = httpx.get(sim.url + "/version").json()
    assert "simulated" in version["version"] and version["simulated"] is True


def test_stream_frames_like_vllm_role_reasoning_content_usage_done(sim):
    events = stream_events(sim.url, chat_body(reasoning_effort="high", stream_options={"include_usage": True}))
    chunks = parse_chunks(events)
    assert chunks[0]["object"] == "chat.completion.chunk"
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert len({c["id"] for c in chunks}) == 1 and chunks[0]["id"].startswith("chatcmpl-")
    deltas = [c["choices"][0]["delta"] for c in chunks[1:-1]]
    kinds = ["reasoning" if "reasoning" in d else "content" for d in deltas]
    assert kinds[0] == "reasoning" and kinds[-1] == "content"
    assert kinds == sorted(kinds, key=lambda k: k == "content"), "all reasoning comes before any content"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    usage = chunks[-1]["usage"]
    assert chunks[-1]["choices"] == []
    reasoning = "".join(d.get("reasoning", "") for d in deltas)
    content = "".join(d.get("content", "") for d in deltas)
    assert usage["completion_tokens_details"]["reasoning_tokens"] == TOKENIZER.count(reasoning)
    assert usage["completion_tokens"] == TOKENIZER.count(reasoning) + TOKENIZER.count(content)
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_no_reasoning_unless_asked_and_usage_only_when_asked(sim):
    chunks = parse_chunks(stream_events(sim.url, chat_body()))
    assert all("usage" not in c for c in chunks)
    assert not any("reasoning" in c["choices"][0]["delta"] for c in chunks)
    off = chat_body(reasoning_effort="high", chat_template_kwargs={"enable_thinking": False})
    assert not any("reasoning" in c["choices"][0]["delta"] for c in parse_chunks(stream_events(sim.url, off)))


def test_prompt_tokens_match_tokenize_of_the_same_messages(sim):
    body = chat_body("Count me exactly, please: 6K tokens of synthetic prompt.", max_tokens=5)
    sized = httpx.post(sim.url + "/tokenize", json={"messages": body["messages"]}).json()
    served = httpx.post(sim.url + "/v1/chat/completions", json=body).json()
    assert served["usage"]["prompt_tokens"] == sized["count"] == len(sized["tokens"])
    back = httpx.post(sim.url + "/detokenize", json={"tokens": sized["tokens"]}).json()["prompt"]
    assert back.endswith("<|im_start|>assistant\n") and "Count me exactly" in back


def test_openai_client_streams_reasoning_and_content(sim):
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="sim")
    stream = client.chat.completions.create(
        model="sim-org/sim-model-7b-simulated",
        messages=[{"role": "user", "content": "Think, then answer."}],
        stream=True,
        stream_options={"include_usage": True},
        reasoning_effort="medium",
    )
    reasoning, content, usage, finish = "", "", None, None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            reasoning += (choice.delta.model_extra or {}).get("reasoning") or ""
            content += choice.delta.content or ""
            finish = choice.finish_reason or finish
    assert reasoning and content and finish == "stop"
    assert usage.completion_tokens == TOKENIZER.count(reasoning) + TOKENIZER.count(content)
    assert usage.completion_tokens_details.reasoning_tokens == TOKENIZER.count(reasoning)


def test_openai_client_non_streamed_chat_and_completion(sim):
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="sim")
    reply = client.chat.completions.create(
        model="sim-org/sim-model-7b-simulated", messages=[{"role": "user", "content": "One line."}], max_tokens=12, extra_body={"ignore_eos": True}
    )
    assert reply.choices[0].finish_reason == "length" and reply.usage.completion_tokens == 12
    assert TOKENIZER.count(reply.choices[0].message.content) == 12
    completion = client.completions.create(model="sim-org/sim-model-7b-simulated", prompt="Once upon", max_tokens=7, extra_body={"ignore_eos": True})
    assert completion.object == "text_completion" and completion.usage.completion_tokens == 7
    assert completion.usage.prompt_tokens == TOKENIZER.count("Once upon")


def test_openai_client_streamed_completion_with_usage(sim):
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="sim")
    text, usage = "", None
    for chunk in client.completions.create(
        model="sim-org/sim-model-7b-simulated", prompt="Tell me", stream=True, stream_options={"include_usage": True}
    ):
        usage = chunk.usage or usage
        text += "".join(c.text for c in chunk.choices)
    assert text and usage.completion_tokens == TOKENIZER.count(text)


def test_tools_non_streamed_then_tool_result_answered_in_content(sim):
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="sim")
    messages = [{"role": "user", "content": "Weather in Oslo?"}]
    first = client.chat.completions.create(model="sim-org/sim-model-7b-simulated", messages=messages, tools=[WEATHER_TOOL])
    call = first.choices[0].message.tool_calls[0]
    assert first.choices[0].finish_reason == "tool_calls" and call.function.name == "get_weather"
    arguments = json.loads(call.function.arguments)
    assert isinstance(arguments["city"], str) and isinstance(arguments["days"], int)
    messages += [first.choices[0].message.model_dump(exclude_none=True), {"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 4}'}]
    second = client.chat.completions.create(model="sim-org/sim-model-7b-simulated", messages=messages, tools=[WEATHER_TOOL])
    assert second.choices[0].finish_reason == "stop" and second.choices[0].message.content
    assert not second.choices[0].message.tool_calls


def test_tools_streamed_as_deltas_assemble_to_valid_arguments(sim):
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="sim")
    name, arguments, ids, finish = "", "", set(), None
    for chunk in client.chat.completions.create(
        model="sim-org/sim-model-7b-simulated",
        stream=True,
        messages=[{"role": "user", "content": "Weather?"}],
        tools=[WEATHER_TOOL],
        tool_choice="required",
    ):
        for choice in chunk.choices:
            for call in choice.delta.tool_calls or []:
                assert call.index == 0
                ids.add(call.id) if call.id else None
                name += call.function.name or ""
                arguments += call.function.arguments or ""
            finish = choice.finish_reason or finish
    assert name == "get_weather" and len(ids) == 1 and finish == "tool_calls"
    assert set(json.loads(arguments)) == {"city", "days"}


@pytest.mark.parametrize(
    "fmt",
    [
        {"type": "json_object"},
        {
            "type": "json_schema",
            "json_schema": {
                "name": "verdict",
                "schema": {
                    "type": "object",
                    "properties": {"promote": {"type": "boolean"}, "reason": {"type": "string"}, "score": {"type": "number"}},
                    "required": ["promote"],
                },
            },
        },
    ],
)
def test_json_mode_returns_valid_json(sim, fmt):
    client = openai.OpenAI(base_url=sim.openai_base_url, api_key="sim")
    reply = client.chat.completions.create(
        model="sim-org/sim-model-7b-simulated", response_format=fmt, messages=[{"role": "user", "content": "Answer in JSON."}]
    )
    value = json.loads(reply.choices[0].message.content)
    assert isinstance(value, dict)
    if fmt["type"] == "json_schema":
        assert isinstance(value["promote"], bool) and isinstance(value["reason"], str)


def test_reasoning_content_field_by_profile():
    from evidence_kit.engine_sim import configure_profile, running_simulator

    profile = configure_profile("original")
    profile = profile.model_copy(update={"output": profile.output.model_copy(update={"reasoning_field": "reasoning_content"})})
    with running_simulator(profile, time_scale=50) as url:
        chunks = parse_chunks(stream_events(url, chat_body(reasoning_effort="low")))
    fields = {key for c in chunks for key in c["choices"][0]["delta"]}
    assert "reasoning_content" in fields and "reasoning" not in fields


@pytest.mark.parametrize(
    "body, status",
    [
        (chat_body(model="someone-else/model"), 404),
        (chat_body(max_tokens=20000), 400),
        ({"messages": []}, 400),
        (chat_body(n=2), 400),
    ],
)
def test_bad_requests_get_vllm_error_bodies(sim, body, status):
    response = httpx.post(sim.url + "/v1/chat/completions", json=body)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == status and error["message"]
