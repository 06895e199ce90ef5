"""Measure how many prompt tokens the engine counts per synthetic word (once per trial)."""

from __future__ import annotations

from typing import Any

import httpx

from ..errors import CheckFailed
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
    body = {"model": model, "messages": messages, "max_tokens": 1, "temperature": 0}
    try:
        response = await client.post(f"{base}/v1/chat/completions", json=body, timeout=120.0)
        count = response.json()["usage"]["prompt_tokens"] if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None
    return count if isinstance(count, int) else None


async def calibrate(client: httpx.AsyncClient, base_url: str, model: str, instruction: str, seed: int) -> Calibration:
    """Tokens of the instruction alone and per body word: ``/tokenize`` if served, else ``usage``."""
    base = base_url.rstrip("/")
    empty = chat_messages(instruction, "")
    full = chat_messages(instruction, calibration_text(seed))
    for method, count in (("tokenize", _tokenize), ("usage", _usage)):
        small = await count(client, base, model, empty)
        large = await count(client, base, model, full) if small is not None else None
        if small is not None and large is not None and large > small:
            return Calibration.from_counts(method, small, large, CALIBRATION_WORDS)
    raise CheckFailed("cannot size prompts: the engine answers neither /tokenize nor usage.prompt_tokens")
