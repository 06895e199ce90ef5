"""Simulators for the tests: real uvicorn servers on 127.0.0.1, run fast with a large time scale."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from evidence_kit.engine_sim import Simulator, start_simulator

FAST = 50.0  # time scale: the modelled engine, 50 times faster


@pytest.fixture(scope="module")
def sim() -> Iterator[Simulator]:
    """One `original` simulator shared by a module's read-mostly tests."""
    server = start_simulator("original", time_scale=FAST)
    yield server
    server.stop()


def chat_body(text: str = "Summarise the trial in one line.", **extra: object) -> dict:
    return {"model": "sim-org/sim-model-7b-simulated", "messages": [{"role": "user", "content": text}], **extra}


def stream_events(url: str, body: dict, headers: dict | None = None, timeout: float = 30.0) -> list[str]:
    """The ``data:`` payloads of one streamed request, in order."""
    with httpx.stream("POST", url + "/v1/chat/completions", json={**body, "stream": True}, headers=headers, timeout=timeout) as response:
        response.raise_for_status()
        return [line[len("data: ") :] for line in response.iter_lines() if line.startswith("data: ")]


def parse_chunks(events: list[str]) -> list[dict]:
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]
