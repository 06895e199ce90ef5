"""What the simulated model says: a seeded, prompt-dependent plan of output tokens.

A plan is the whole output decided at arrival (the engine only decides *when* each token
comes out): reasoning tokens first when the request asks for reasoning, then either content
(plain text, or JSON for ``response_format``) or one tool call. The same seed and prompt give
the same plan, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .profile import Output
from .tokenizer import TOKENIZER, WORDS

__all__ = [
    "Plan",
    "PlanRequest",
    "plan_output",
    "recall",
    "request_rng",
    "REASONING",
    "CONTENT",
    "TOOL_HEAD",
    "TOOL_ARGS",
    "TOOL_TAIL",
    "REASONING_EFFORT",
]

REASONING, CONTENT, TOOL_HEAD, TOOL_ARGS, TOOL_TAIL = "reasoning", "content", "tool_head", "tool_args", "tool_tail"
REASONING_EFFORT = {"minimal": 0.25, "low": 0.5, "medium": 1.0, "high": 1.5, "max": 2.0, "xhigh": 2.0}
_PAD = {CONTENT: "\n", TOOL_TAIL: "\n"}


@dataclass
class PlanRequest:
    """The parts of a request that shape its output."""

    prompt: str
    seed: int = 0
    reasoning_effort: float = 0.0  # 0 = no reasoning
    max_tokens: int = 1 << 30
    min_tokens: int = 0
    ignore_eos: bool = False
    response_format: dict[str, Any] | None = None
    tool: dict[str, Any] | None = None  # the function to call, when the model calls one


@dataclass
class Plan:
    """Every output token, its kind, and how the output ends."""

    tokens: list[int]
    kinds: list[str]
    finish_reason: str
    tool_name: str = ""
    tool_call_id: str = ""
    texts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.texts = [TOKENIZER.token_text(t) for t in self.tokens]

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def head_end(self) -> int:
        """Index just past a tool call's head (name); -1 without a tool call."""
        heads = [i for i, k in enumerate(self.kinds) if k == TOOL_HEAD]
        return heads[-1] + 1 if heads else -1

    def count(self, kind: str) -> int:
        return sum(1 for k in self.kinds if k == kind)


def request_rng(*parts: object) -> random.Random:
    """A random generator seeded by a stable hash of ``parts`` (not Python's salted hash)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _natural(rng: random.Random, mean: float, spread: float) -> int:
    return max(1, round(mean * math.exp(rng.gauss(0.0, spread) - spread * spread / 2)))


def _words(rng: random.Random, n: int, *, first_space: bool = False) -> str:
    picked = [WORDS[rng.randrange(len(WORDS))] for _ in range(n)]
    return (" " if first_space else "") + " ".join(picked)


def _sentence_tokens(rng: random.Random, n: int, *, continued: bool = False) -> list[int]:
    """Exactly ``n`` tokens of words, a full stop every dozen or so (``continued``: after text)."""
    tokens: list[int] = []
    while len(tokens) < n:
        word = _words(rng, 1, first_space=bool(tokens) or continued)
        tokens.extend(TOKENIZER.encode(word))
        if len(tokens) < n and rng.random() < 0.08:
            tokens.extend(TOKENIZER.encode("."))
    return tokens[:n]


def _value_for(schema: dict[str, Any], rng: random.Random, words: int) -> Any:
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if "enum" in schema and schema["enum"]:
        return schema["enum"][rng.randrange(len(schema["enum"]))]
    if kind == "object":
        props = schema.get("properties", {}) or {}
        return {name: _value_for(sub, rng, words) for name, sub in props.items()}
    if kind == "array":
        return [_value_for(schema.get("items", {}) or {}, rng, max(1, words // 2))]
    if kind == "integer":
        return rng.randrange(1, 100)
    if kind == "number":
        return round(rng.uniform(0, 100), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return _words(rng, max(1, words))


def _json_content(fmt: dict[str, Any], rng: random.Random, n: int) -> str:
    if fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema") or {}
        schema = spec.get("schema") or spec.get("json_schema") or {"type": "object"}
        value = _value_for(schema, rng, max(1, n // 4))
        return json.dumps(value)
    return json.dumps({"summary": _words(rng, max(1, n - 6))})


def _tool_tokens(tool: dict[str, Any], rng: random.Random) -> tuple[list[int], list[str]]:
    name = str(tool.get("name", "tool"))
    arguments = json.dumps(_value_for(tool.get("parameters") or {"type": "object"}, rng, 3))
    head = TOKENIZER.encode(json.dumps({"name": name})[:-1] + ', "arguments": ')
    args = TOKENIZER.encode(arguments)
    tail = TOKENIZER.encode("}")
    return head + args + tail, [TOOL_HEAD] * len(head) + [TOOL_ARGS] * len(args) + [TOOL_TAIL] * len(tail)


_FACT = re.compile(r"\b[Tt]he ([a-z][a-z ]{0,40}?) is ([A-Za-z0-9][A-Za-z0-9-]{0,40})\.")
_QUESTION = re.compile(r"\bWhat is the ([a-z][a-z ]{0,40}?)\?[^?]*$")


def recall(prompt: str) -> str | None:
    """The simulated model's long-context recall: a prompt ending in "What is the X?" is
    answered with Y from a sentence "The X is Y." anywhere in the prompt (the last one wins).

    This is what lets the collector's needle gate pass against the simulator; real
    engines are tested by the same gate for real.
    """
    question = _QUESTION.search(prompt)
    if question is None:
        return None
    subject = question.group(1)
    answers = [m.group(2) for m in _FACT.finditer(prompt, 0, question.start()) if m.group(1) == subject]
    return answers[-1] if answers else None


def plan_output(req: PlanRequest, output: Output, profile_seed: int) -> Plan:
    """Decide the output of one request: natural length, or fixed by ``ignore_eos``/``min_tokens``."""
    rng = request_rng(profile_seed, req.seed, req.prompt)
    tokens: list[int] = []
    kinds: list[str] = []
    if req.reasoning_effort > 0 and output.reasoning_tokens_mean > 0:
        n = _natural(rng, output.reasoning_tokens_mean * req.reasoning_effort, output.spread)
        tokens = _sentence_tokens(rng, n)
        kinds = [REASONING] * len(tokens)
    tool_name = ""
    if req.tool is not None:
        body, body_kinds = _tool_tokens(req.tool, rng)
        tool_name = str(req.tool.get("name", "tool"))
        tail_kind = TOOL_TAIL
    else:
        n = _natural(rng, output.content_tokens_mean, output.spread)
        answer = recall(req.prompt)
        if req.response_format and req.response_format.get("type") in ("json_object", "json_schema"):
            body = TOKENIZER.encode(_json_content(req.response_format, rng, n))
        elif answer is not None:
            body = TOKENIZER.encode(answer + ".")
        else:
            body = _sentence_tokens(rng, max(1, n - 1)) + TOKENIZER.encode(".")
        body_kinds = [CONTENT] * len(body)
        tail_kind = CONTENT
    tokens += body
    kinds += body_kinds
    target = req.max_tokens if req.ignore_eos else max(len(tokens), req.min_tokens)
    if len(tokens) < target:
        # Past the natural end: more words for plain text, trailing newlines after JSON or a tool call.
        extra = target - len(tokens)
        plain = tail_kind == CONTENT and not req.response_format
        pad = _sentence_tokens(rng, extra, continued=True) if plain else TOKENIZER.encode(_PAD[tail_kind] * extra)
        tokens += pad
        kinds += [tail_kind] * len(pad)
    finish = "tool_calls" if req.tool is not None else "stop"
    if len(tokens) > req.max_tokens or (req.ignore_eos and len(tokens) >= req.max_tokens):
        tokens, kinds, finish = tokens[: req.max_tokens], kinds[: req.max_tokens], "length"
    call_id = f"chatcmpl-tool-{rng.getrandbits(64):016x}" if tool_name else ""
    return Plan(tokens=tokens, kinds=kinds, finish_reason=finish, tool_name=tool_name, tool_call_id=call_id)
