"""Measure how many prompt tokens the engine counts per synthetic word (once per trial).

With ``/tokenize`` where the engine serves it; else from the ``usage`` of a one-token
request, streamed with the client the timed requests use.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from ..errors import CheckFailed
from .client import stream_chat
from .prompts import CALIBRATION_WORDS, Calibration, calibration_text, chat_messages

__all__ = ["calibrate"]


async def _tokenize(client: httpx.AsyncClient, base: str, model: str, messages: list[dict[str, Any]]) -> int | None:
    try:
        response = await client.post(f"{base}/tokenize", json={"model": model, "messages": messages}, timeout=60.0)
        count = response.json().get("count") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return count if isinstance(count, int) else None


async def _usage(client: httpx.AsyncClient, base: str, model: str, messages: list[dict[str, Any]]) -> int | None:
    # Streamed, as every timed request is: the usage it reports is the one their prompts are sized by.
    body = {"model": model, "messages": messages, "max_tokens": 1, "temperature": 0}
    out = await stream_chat(client, f"{base}/v1/chat/completions", body, clock=time.perf_counter, timeout=120.0)
    count = out.prompt_tokens if out.ok else None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


# Body sizes to measure with, largest (most precise) first: a model with a short context
# refuses the larger ones (2,000 words are ~2,600 tokens), so the next one is tried.
_SIZES = (CALIBRATION_WORDS, 400, 80)


async def calibrate(client: httpx.AsyncClient, base_url: str, model: str, instruction: str, seed: int) -> Calibration:
    """Tokens of the instruction alone and per body word: ``/tokenize`` if served, else ``usage``."""
    base = base_url.rstrip("/")
    empty = chat_messages(instruction, "")
    for method, count in (("tokenize", _tokenize), ("usage", _usage)):
        small = await count(client, base, model, empty)
        if small is None:
            continue
        for words in _SIZES:
            large = await count(client, base, model, chat_messages(instruction, calibration_text(seed, words)))
            if large is not None and large > small:
                return Calibration.from_counts(method, small, large, words)
    raise CheckFailed("cannot size prompts: the engine answers neither /tokenize nor usage.prompt_tokens")
