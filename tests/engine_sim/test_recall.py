"""Long-context recall (what the needle gate asks of an engine) and the process start time."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from evidence_kit.engine_sim.generation import recall

from .conftest import chat_body


def test_recall_answers_from_a_fact_deep_in_the_prompt() -> None:
    filler = " ".join(["harbour"] * 3000)
    prompt = f"{filler}. The access code is 402913. {filler}\n\nWhat is the access code? Answer with six digits."
    assert recall(prompt) == "402913"
    assert recall(filler + "\n\nWhat is the access code?") is None  # no fact, no answer
    assert recall("The access code is 1. The access code is 2. What is the access code?") == "2"
    assert recall("The access code is 1. What is the boiling point?") is None


def test_the_server_recalls_and_otherwise_talks_freely(sim) -> None:
    prompt = "word " * 500 + "The access code is 777001. " + "word " * 200 + "What is the access code?"
    reply = httpx.post(sim.url + "/v1/chat/completions", json=chat_body(prompt), timeout=30).json()
    assert reply["choices"][0]["message"]["content"].startswith("777001")
    free = httpx.post(sim.url + "/v1/chat/completions", json=chat_body(), timeout=30).json()
    assert "777001" not in free["choices"][0]["message"]["content"]


def test_process_start_time_is_exposed_and_stable(sim) -> None:
    def start() -> float:
        text = httpx.get(sim.url + "/metrics", timeout=10).text
        samples = [s for f in text_string_to_metric_families(text) for s in f.samples if s.name == "process_start_time_seconds"]
        assert len(samples) == 1
        return samples[0].value

    assert start() == start() > 1.7e9
