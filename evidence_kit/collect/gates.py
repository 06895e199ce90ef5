"""Functional gates: does the engine do what production needs before it is timed?

Each gate sends one small request and returns ``(ok, detail)``; the detail is
public evidence, so it states what was observed (status, lengths, finish
reason) and never echoes endpoint or model names.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from .client import FAILED_FINISH, stream_chat
from .prompts import VOCABULARY

__all__ = ["run_gate", "GATES"]

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"],
        },
    },
}
TOOL_PROMPT = "What is the weather in Lisbon right now? Use the get_weather tool."


async def _post(client: httpx.AsyncClient, base: str, body: dict[str, Any], timeout: float) -> tuple[int, Any]:
    response = await client.post(f"{base}/v1/chat/completions", json=body, timeout=timeout)
    try:
        doc = response.json()
    except ValueError:
        doc = None
    return response.status_code, doc


def _message(doc: Any) -> tuple[dict[str, Any], str | None]:
    choice = (doc or {}).get("choices", [{}])[0]
    return choice.get("message") or {}, choice.get("finish_reason")


def _valid_calls(calls: list[dict[str, Any]]) -> str | None:
    """``None`` when every call names a function and has JSON-object arguments, else why not."""
    if not calls:
        return "no tool call"
    for call in calls:
        fn = call.get("function", call)
        if not fn.get("name"):
            return "a tool call has no function name"
        try:
            if not isinstance(json.loads(fn.get("arguments") or ""), dict):
                return "tool arguments are not a JSON object"
        except ValueError:
            return "tool arguments are not valid JSON"
    return None


Gate = Callable[[httpx.AsyncClient, str, str, dict[str, Any]], Awaitable[tuple[bool, str]]]


async def smoke(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    body = {"model": model, "messages": [{"role": "user", "content": "Reply with one short sentence."}],
            "max_tokens": 32, "temperature": 0}
    status, doc = await _post(client, base, body, opts["timeout_s"])
    message, finish = _message(doc)
    text = message.get("content") or message.get("reasoning") or message.get("reasoning_content") or ""
    ok = status == 200 and bool(text) and finish is not None and finish not in FAILED_FINISH
    return ok, f"http {status}, {len(text)} characters, finish {finish}"


async def json_gate(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    body = {"model": model, "max_tokens": opts["max_tokens"], "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "user", "content": 'Return a JSON object {"city": "Lisbon", "ok": true}.'}]}
    status, doc = await _post(client, base, body, opts["timeout_s"])
    text = _message(doc)[0].get("content") or ""
    try:
        parsed = json.loads(text)
    except ValueError:
        return False, f"http {status}, output is not valid JSON ({len(text)} characters)"
    return status == 200, f"http {status}, output parses as JSON {type(parsed).__name__}"


async def needle(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    rng = random.Random(opts["seed"])
    code = f"{rng.randrange(10**6):06d}"
    words = rng.choices(VOCABULARY, k=max(opts["needle_words"], 64))
    depth = int(len(words) * 0.7)  # deep, but not at either end where recall is easiest
    words.insert(depth, f". The access code is {code}. ")
    prompt = " ".join(words) + "\n\nWhat is the access code? Answer with the six digits only."
    body = {"model": model, "messages": [{"role": "user", "content": prompt}],
            "max_tokens": opts["max_tokens"], "temperature": 0}
    status, doc = await _post(client, base, body, opts["timeout_s"])
    message = _message(doc)[0]
    found = code in (message.get("content") or "")
    return status == 200 and found, f"http {status}, fact at {depth}/{len(words)} words, recalled {found}"


async def tools(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    body = {"model": model, "messages": [{"role": "user", "content": TOOL_PROMPT}], "tools": [WEATHER_TOOL],
            "tool_choice": "required", "max_tokens": opts["max_tokens"], "temperature": 0}
    status, doc = await _post(client, base, body, opts["timeout_s"])
    calls = _message(doc)[0].get("tool_calls") or []
    problem = _valid_calls(calls)
    return status == 200 and problem is None, f"http {status}, {len(calls)} tool call(s)" + (
        f": {problem}" if problem else ", arguments parse as JSON objects")


async def streaming_tools(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    body = {"model": model, "messages": [{"role": "user", "content": TOOL_PROMPT}], "tools": [WEATHER_TOOL],
            "tool_choice": "required", "max_tokens": opts["max_tokens"], "temperature": 0}
    out = await stream_chat(client, f"{base}/v1/chat/completions", body, clock=time.perf_counter,
                            timeout=opts["timeout_s"])
    if not out.ok:
        return False, f"stream failed: {out.error}"
    calls = [out.tool_calls[i] for i in sorted(out.tool_calls)]
    problem = _valid_calls(calls)
    return problem is None, f"{len(out.token_times)} streamed deltas assembled into {len(calls)} tool call(s)" + (
        f": {problem}" if problem else ", arguments parse as JSON objects")


async def tool_result(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    messages = [
        {"role": "user", "content": TOOL_PROMPT},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_gate_1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Lisbon"}'}}]},
        {"role": "tool", "tool_call_id": "call_gate_1", "content": '{"city": "Lisbon", "temp_c": 21}'},
    ]
    body = {"model": model, "messages": messages, "tools": [WEATHER_TOOL], "max_tokens": opts["max_tokens"],
            "temperature": 0}
    status, doc = await _post(client, base, body, opts["timeout_s"])
    message, finish = _message(doc)
    text = message.get("content") or message.get("reasoning") or message.get("reasoning_content") or ""
    ok = status == 200 and finish is not None and finish not in FAILED_FINISH and bool(text or message.get("tool_calls"))
    return ok, f"http {status}, follow-up after a tool message completed, finish {finish}"


GATES: dict[str, Gate] = {
    "smoke": smoke,
    "json": json_gate,
    "needle": needle,
    "tools": tools,
    "streaming-tools": streaming_tools,
    "tool-result": tool_result,
}


async def run_gate(name: str, client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    """Run gate ``name``; transport errors and odd replies are a failed gate, never a crash."""
    try:
        return await GATES[name](client, base.rstrip("/"), model, opts)
    except httpx.HTTPError as err:
        return False, f"{type(err).__name__}: {str(err)[:120]}"
    except (AttributeError, IndexError, KeyError, TypeError) as err:
        return False, f"unexpected reply shape ({type(err).__name__})"
