"""The OpenAI-compatible wire format as vLLM speaks it: request parsing and response bodies.

Shapes follow vLLM's ``vllm/entrypoints/openai/protocol.py``: a chat stream opens with a
role-only chunk (``{"role": "assistant", "content": ""}``), sends deltas, puts
``finish_reason`` on the last delta, then (with ``stream_options.include_usage``) a chunk with
empty ``choices`` and the usage, then ``data: [DONE]``. Errors are ``{"error": {...}}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .generation import CONTENT, REASONING, REASONING_EFFORT, TOOL_ARGS, TOOL_HEAD, Plan, PlanRequest
from .tokenizer import TOKENIZER, render_chat

__all__ = ["ProtocolError", "Parsed", "parse_chat", "parse_completion", "error_body", "usage_body", "dumps", "group_deltas", "chat_message", "sse"]


class ProtocolError(Exception):
    """A request the server refuses, with the HTTP status vLLM would answer."""

    def __init__(self, message: str, status: int = 400, kind: str = "BadRequestError"):
        super().__init__(message)
        self.status, self.kind = status, kind


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sse(value: Any) -> bytes:
    return f"data: {dumps(value)}\n\n".encode()


def error_body(message: str, status: int, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": status}}


@dataclass
class Parsed:
    """One generation request, read from its JSON body."""

    plan_request: PlanRequest
    prompt_tokens: int
    stream: bool
    include_usage: bool
    model: str | None
    request_id: str | None


def _int_field(body: dict[str, Any], name: str, default: int | None, minimum: int = 0) -> int | None:
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ProtocolError(f"{name} must be an integer >= {minimum}")
    return value


def _common(body: dict[str, Any], prompt: str, prompt_tokens: int, max_model_len: int, **plan: Any) -> Parsed:
    if prompt_tokens > max_model_len:
        raise ProtocolError(
            f"This model's maximum context length is {max_model_len} tokens. "
            f"However, your request has {prompt_tokens} input tokens. "
            "Please reduce the length of the input messages."
        )
    max_tokens = _int_field(body, "max_completion_tokens", None, 1)
    max_tokens = _int_field(body, "max_tokens", max_tokens, 1)
    if max_tokens is None:
        max_tokens = max_model_len - prompt_tokens
    if max_tokens <= 0 or prompt_tokens + max_tokens > max_model_len:
        raise ProtocolError(
            f"This model's maximum context length is {max_model_len} tokens. However, you "
            f"requested {prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, "
            f"{max_tokens} in the completion). Please reduce the length of the messages or completion."
        )
    if body.get("n", 1) != 1:
        raise ProtocolError("the simulator serves n = 1 only")
    options = body.get("stream_options") or {}
    stream = bool(body.get("stream", False))
    if options and not stream:
        raise ProtocolError("Stream options can only be defined when `stream=True`.")
    request = PlanRequest(
        prompt=prompt,
        seed=_int_field(body, "seed", 0, -(1 << 63)) or 0,
        max_tokens=max_tokens,
        min_tokens=_int_field(body, "min_tokens", 0) or 0,
        ignore_eos=bool(body.get("ignore_eos", False)),
        **plan,
    )
    return Parsed(request, prompt_tokens, stream, bool(options.get("include_usage", False)), body.get("model"), body.get("request_id"))


def _reasoning_effort(body: dict[str, Any]) -> float:
    kwargs = body.get("chat_template_kwargs") or {}
    thinking = kwargs.get("enable_thinking", kwargs.get("thinking"))
    effort = body.get("reasoning_effort")
    if thinking is False or effort in ("none", None) and not thinking:
        return 0.0
    if effort is None:
        return 1.0
    if effort not in REASONING_EFFORT:
        raise ProtocolError(f"reasoning_effort must be one of {', '.join(REASONING_EFFORT)} or none")
    return REASONING_EFFORT[effort]


def _chosen_tool(body: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    tools = body.get("tools") or []
    choice = body.get("tool_choice", "auto" if tools else "none")
    if not tools or choice == "none":
        return None
    # A tool entry's "function" is an object in the OpenAI schema the request follows.
    functions: list[dict[str, Any]] = [t.get("function", {}) for t in tools if isinstance(t, dict)]
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        named = [f for f in functions if f.get("name") == name]
        if not named:
            raise ProtocolError(f"tool_choice names an unknown function {name!r}")
        return named[0]
    # "auto": call a tool unless the last turn is a tool's result (then answer in content).
    if choice == "required" or (messages and messages[-1].get("role") != "tool"):
        return functions[0] if functions else None
    return None


def parse_chat(body: dict[str, Any], max_model_len: int) -> Parsed:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise ProtocolError("messages must be a non-empty list of message objects")
    for message in messages:
        if message.get("role") not in ("system", "developer", "user", "assistant", "tool"):
            raise ProtocolError(f"unknown message role {message.get('role')!r}")
    prompt = render_chat(messages, body.get("tools"))
    fmt = body.get("response_format")
    if fmt is not None and (not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema")):
        raise ProtocolError("response_format.type must be text, json_object or json_schema")
    return _common(
        body,
        prompt,
        TOKENIZER.count(prompt),
        max_model_len,
        reasoning_effort=_reasoning_effort(body),
        response_format=fmt,
        tool=_chosen_tool(body, messages),
    )


def parse_completion(body: dict[str, Any], max_model_len: int) -> Parsed:
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1:
        prompt = prompt[0]
    if isinstance(prompt, list) and prompt and all(isinstance(t, int) for t in prompt):
        try:
            prompt = TOKENIZER.decode(prompt)
        except ValueError as err:
            raise ProtocolError(str(err)) from None
    if not isinstance(prompt, str):
        raise ProtocolError("prompt must be a string, a list of one string, or a list of token ids")
    return _common(body, prompt, TOKENIZER.count(prompt), max_model_len)


def usage_body(prompt_tokens: int, completion_tokens: int, reasoning_tokens: int, cached_tokens: int | None = None) -> dict[str, Any]:
    """vLLM's usage; ``prompt_tokens_details`` carries the cached prompt tokens where the engine caches
    prefixes (vLLM with ``--enable-prompt-tokens-details``), else null."""
    details = None if cached_tokens is None else {"cached_tokens": cached_tokens}
    return {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_details": details,
        "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
    }


def group_deltas(plan: Plan, start: int, end: int, reasoning_field: str) -> list[dict[str, Any]]:
    """The chat deltas for output tokens ``start:end``, one per run of the same kind.

    A tool call's name goes out once its whole head is produced (as vLLM's tool parsers wait
    for the name); its arguments stream as they come; the closing brace shows nothing.
    """
    deltas: list[dict[str, Any]] = []
    i = start
    while i < end:
        kind = plan.kinds[i]
        j = i
        while j < end and plan.kinds[j] == kind:
            j += 1
        text = "".join(plan.texts[i:j])
        if kind == REASONING:
            deltas.append({reasoning_field: text})
        elif kind == CONTENT:
            deltas.append({"content": text})
        elif kind == TOOL_HEAD and j == plan.head_end:
            deltas.append(
                {"tool_calls": [{"id": plan.tool_call_id, "type": "function", "index": 0, "function": {"name": plan.tool_name, "arguments": ""}}]}
            )
        elif kind == TOOL_ARGS:
            deltas.append({"tool_calls": [{"index": 0, "function": {"arguments": text}}]})
        i = j
    return deltas


def chat_message(plan: Plan, produced: int, reasoning_field: str) -> dict[str, Any]:
    """The non-streamed ``message`` for the first ``produced`` tokens of a plan."""

    def text(kind: str) -> str | None:
        joined = "".join(t for t, k in zip(plan.texts[:produced], plan.kinds[:produced]) if k == kind)
        return joined or None

    arguments = "".join(t for t, k in zip(plan.texts[:produced], plan.kinds[:produced]) if k == TOOL_ARGS)
    tool_calls = []
    if plan.tool_name and produced >= plan.head_end:
        tool_calls = [{"id": plan.tool_call_id, "type": "function", "function": {"name": plan.tool_name, "arguments": arguments}}]
    return {
        "role": "assistant",
        "content": text(CONTENT),
        "refusal": None,
        "annotations": None,
        "audio": None,
        "function_call": None,
        "tool_calls": tool_calls,
        reasoning_field: text(REASONING),
    }
