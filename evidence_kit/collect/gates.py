"""Functional gates: does the engine do what production needs before it is timed?

Each gate sends one small request and returns ``(ok, detail)``; the detail is
public evidence, so it states what was observed (status, lengths, finish
reason) and never echoes endpoint or model names. Every gate streams its request
with :func:`~.client.stream_chat`, the client the timed requests use, so a gate that
passes has exercised the path the timed requests take; all but ``tools``, whose point
is the non-streamed tool call (``streaming-tools`` is its streamed twin).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from ..model.failures import failure_code, finish_code
from .client import Outcome, stream_chat
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


async def _streamed(client: httpx.AsyncClient, base: str, body: dict[str, Any], timeout: float) -> Outcome:
    return await stream_chat(client, f"{base}/v1/chat/completions", body, clock=time.perf_counter, timeout=timeout)


def _stream_failed(out: Outcome) -> str:
    """What failed, never what the engine said: an error body or event may name the model or the endpoint
    (``The model `acme/llama-70b` does not exist``), and a gate's detail is public."""
    status = f", http {out.http_status}" if out.http_status is not None else ""
    finish = f", finish_reason {finish_code(out.finish_reason)!r}" if out.finish_reason else ""  # as its word, never as sent
    return f"stream failed: {failure_code(out.error or '')}{status}{finish}"


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
    body = {"model": model, "messages": [{"role": "user", "content": "Reply with one short sentence."}], "max_tokens": 32, "temperature": 0}
    out = await _streamed(client, base, body, opts["timeout_s"])
    if not out.ok:
        return False, _stream_failed(out)
    # Reasoning counts as output: a reasoning model may spend 32 tokens before any content.
    ok = bool(out.token_times)
    return ok, (
        f"http {out.http_status}, streamed {len(out.token_times)} token events, {len(out.text)} content characters, "
        f"finish {finish_code(out.finish_reason) if out.finish_reason else None}"
    )


async def json_gate(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    body = {
        "model": model,
        "max_tokens": opts["max_tokens"],
        "temperature": 0,
        "response_format": {"type": "json_object"},
        "messages": [{"role": "user", "content": 'Return a JSON object {"city": "Lisbon", "ok": true}.'}],
    }
    out = await _streamed(client, base, body, opts["timeout_s"])
    if not out.ok:
        return False, _stream_failed(out)
    try:
        parsed = json.loads(out.text)
    except ValueError:
        return False, f"http {out.http_status}, streamed output is not valid JSON ({len(out.text)} characters)"
    return True, f"http {out.http_status}, streamed output parses as JSON {type(parsed).__name__}"


async def needle(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    rng = random.Random(opts["seed"])
    code = f"{rng.randrange(10**6):06d}"
    words = rng.choices(VOCABULARY, k=max(opts["needle_words"], 64))
    depth = int(len(words) * 0.7)  # deep, but not at either end where recall is easiest
    words.insert(depth, f". The access code is {code}. ")
    prompt = " ".join(words) + "\n\nWhat is the access code? Answer with the six digits only."
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": opts["max_tokens"], "temperature": 0}
    out = await _streamed(client, base, body, opts["timeout_s"])
    if not out.ok:
        return False, _stream_failed(out)
    found = code in out.text
    return found, f"http {out.http_status}, fact at {depth}/{len(words)} words, recalled {found}"


async def tools(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    body = {
        "model": model,
        "messages": [{"role": "user", "content": TOOL_PROMPT}],
        "tools": [WEATHER_TOOL],
        "tool_choice": "required",
        "max_tokens": opts["max_tokens"],
        "temperature": 0,
    }
    status, doc = await _post(client, base, body, opts["timeout_s"])
    calls = _message(doc)[0].get("tool_calls") or []
    problem = _valid_calls(calls)
    return status == 200 and problem is None, f"http {status}, {len(calls)} tool call(s)" + (
        f": {problem}" if problem else ", arguments parse as JSON objects"
    )


async def streaming_tools(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    body = {
        "model": model,
        "messages": [{"role": "user", "content": TOOL_PROMPT}],
        "tools": [WEATHER_TOOL],
        "tool_choice": "required",
        "max_tokens": opts["max_tokens"],
        "temperature": 0,
    }
    out = await _streamed(client, base, body, opts["timeout_s"])
    if not out.ok:
        return False, _stream_failed(out)
    calls = [out.tool_calls[i] for i in sorted(out.tool_calls)]
    problem = _valid_calls(calls)
    return problem is None, f"{len(out.token_times)} streamed deltas assembled into {len(calls)} tool call(s)" + (
        f": {problem}" if problem else ", arguments parse as JSON objects"
    )


async def tool_result(client: httpx.AsyncClient, base: str, model: str, opts: dict[str, Any]) -> tuple[bool, str]:
    messages = [
        {"role": "user", "content": TOOL_PROMPT},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_gate_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Lisbon"}'}}],
        },
        {"role": "tool", "tool_call_id": "call_gate_1", "content": '{"city": "Lisbon", "temp_c": 21}'},
    ]
    body = {"model": model, "messages": messages, "tools": [WEATHER_TOOL], "max_tokens": opts["max_tokens"], "temperature": 0}
    out = await _streamed(client, base, body, opts["timeout_s"])
    if not out.ok:
        return False, _stream_failed(out)
    ok = bool(out.token_times)  # content, reasoning or a further tool call
    return ok, f"http {out.http_status}, streamed follow-up after a tool message completed, finish {out.finish_reason}"


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
