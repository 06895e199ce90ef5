"""Each fault mode produces exactly the failures it is configured to produce."""

from __future__ import annotations

import json

import httpx
import pytest

from evidence_kit.engine_sim import TOKENIZER, start_simulator

from .conftest import FAST, chat_body, stream_events
from .test_metrics import scrape, total


@pytest.fixture(scope="module")
def faulty():
    """A simulator whose stall lasts 3 s (longer than the 0.5 s client timeout used below)."""
    server = start_simulator("original", time_scale=FAST, faults=["stall-seconds=3"])
    yield server
    server.stop()


def _aborted(url: str) -> float:
    """Sequences the engine aborted because their client went away (simulator-only count)."""
    return httpx.get(url + "/sim/stats").json()["aborted"]


def _finished(url: str) -> float:
    return total(scrape(url), "vllm:request_success_total")


@pytest.mark.parametrize("kind, status", [("http-500", 500), ("http-503", 503)])
def test_http_errors_by_header(faulty, kind, status):
    before = scrape(faulty.url)
    response = httpx.post(faulty.url + "/v1/chat/completions", json=chat_body(), headers={"X-Sim-Fault": kind})
    assert response.status_code == status and response.json()["error"]["code"] == status
    after = scrape(faulty.url)
    assert total(after, "vllm:prompt_tokens_total") == total(before, "vllm:prompt_tokens_total"), "never reached the engine"


def test_drop_cuts_the_stream_mid_response(faulty):
    aborted, finished = _aborted(faulty.url), _finished(faulty.url)
    received: list[str] = []
    with pytest.raises(httpx.RemoteProtocolError):
        with httpx.stream(
            "POST", faulty.url + "/v1/chat/completions", headers={"X-Sim-Fault": "drop"}, json=chat_body(stream=True, max_tokens=60, ignore_eos=True)
        ) as response:
            assert response.status_code == 200
            for line in response.iter_lines():
                received.append(line)
    assert any(line.startswith("data: {") for line in received) and "data: [DONE]" not in received
    assert _aborted(faulty.url) == aborted + 1
    # As on vLLM: an abandoned request is no finished request, under any finished_reason.
    assert _finished(faulty.url) == finished


def test_an_abandoned_request_is_timed_to_its_first_token_but_has_no_end_to_end_time(faulty):
    # vLLM observes TTFT at a request's first token and its end-to-end time only when it finishes in the
    # engine (an abort records no finished-request stats): the collector's counts must see the same.
    names = ("vllm:time_to_first_token_seconds_count", "vllm:e2e_request_latency_seconds_count", "vllm:request_generation_tokens_count")
    before = scrape(faulty.url)
    with pytest.raises(httpx.RemoteProtocolError):
        with httpx.stream(
            "POST", faulty.url + "/v1/chat/completions", headers={"X-Sim-Fault": "drop"}, json=chat_body(stream=True, max_tokens=60, ignore_eos=True)
        ) as response:
            for _ in response.iter_lines():
                pass
    after = scrape(faulty.url)
    assert [total(after, n) - total(before, n) for n in names] == [1, 0, 0]
    stream_events(faulty.url, chat_body(max_tokens=8))
    done = scrape(faulty.url)
    assert [total(done, n) - total(after, n) for n in names] == [1, 1, 1]


def test_drop_cuts_a_non_streamed_body(faulty):
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(faulty.url + "/v1/chat/completions", json=chat_body(), headers={"X-Sim-Fault": "drop"})


def test_stall_outlasts_the_client_timeout_and_the_server_aborts(faulty):
    aborted = _aborted(faulty.url)
    with pytest.raises(httpx.ReadTimeout):
        stream_events(faulty.url, chat_body(max_tokens=40, ignore_eos=True), headers={"X-Sim-Fault": "stall"}, timeout=0.5)
    deadline = __import__("time").monotonic() + 10
    while _aborted(faulty.url) == aborted and __import__("time").monotonic() < deadline:
        __import__("time").sleep(0.05)
    assert _aborted(faulty.url) == aborted + 1


def test_malformed_event_is_exactly_one_unparseable_event(faulty):
    events = stream_events(faulty.url, chat_body(stream_options={"include_usage": True}), headers={"X-Sim-Fault": "malformed"})
    bad = []
    good = []
    for event in events[:-1]:
        try:
            good.append(json.loads(event))
        except json.JSONDecodeError:
            bad.append(event)
    assert len(bad) == 1 and events[-1] == "[DONE]"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in good if c["choices"])
    assert good[-1]["usage"]["completion_tokens"] == TOKENIZER.count(text), "the tokens themselves are intact"


def test_malformed_non_streamed_body_is_not_json(faulty):
    response = httpx.post(faulty.url + "/v1/chat/completions", json=chat_body(), headers={"X-Sim-Fault": "malformed"})
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.text)


def test_wrong_usage_disagrees_with_tokens_sent_and_counters(faulty):
    before = total(scrape(faulty.url), "vllm:generation_tokens_total")
    events = stream_events(faulty.url, chat_body(stream_options={"include_usage": True}), headers={"X-Sim-Fault": "wrong-usage"})
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    generated = total(scrape(faulty.url), "vllm:generation_tokens_total") - before
    assert generated == TOKENIZER.count(text)
    assert chunks[-1]["usage"]["completion_tokens"] != generated


def test_unknown_fault_header_is_a_bad_request(faulty):
    response = httpx.post(faulty.url + "/v1/chat/completions", json=chat_body(), headers={"X-Sim-Fault": "meteor"})
    assert response.status_code == 400 and "meteor" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "kind, rate, n, failing",
    [
        ("http-500", 0.25, 20, {3, 7, 11, 15, 19}),
        ("http-503", 0.1, 20, {9, 19}),
    ],
)
def test_rates_inject_exactly_floor_n_times_rate_evenly(kind, rate, n, failing):
    server = start_simulator("original", time_scale=FAST, faults=[f"{kind}={rate}"])
    try:
        statuses = [httpx.post(server.url + "/v1/chat/completions", json=chat_body(max_tokens=2)).status_code for _ in range(n)]
        stats = httpx.get(server.url + "/sim/stats").json()
    finally:
        server.stop()
    assert {i for i, s in enumerate(statuses) if s != 200} == failing
    assert stats["faults_injected"] == {kind: len(failing)}


def _outcome(url: str, i: int) -> str:
    """What a careful client sees of one streamed request with usage."""
    body = chat_body(f"rated {i}", stream=True, max_tokens=40, stream_options={"include_usage": True})
    try:
        with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=0.5) as response:
            if response.status_code != 200:
                return f"http-{response.status_code}"
            events = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    except httpx.RemoteProtocolError:
        return "drop"
    except httpx.ReadTimeout:
        return "stall"
    try:
        chunks = [json.loads(e) for e in events[:-1]]
    except json.JSONDecodeError:
        return "malformed"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    return "ok" if chunks[-1]["usage"]["completion_tokens"] == TOKENIZER.count(text) else "wrong-usage"


@pytest.mark.parametrize("kind", ["http-500", "http-503", "drop", "stall", "malformed", "wrong-usage"])
def test_each_fault_rate_produces_exactly_its_failures(kind):
    server = start_simulator("original", time_scale=FAST, faults=[f"{kind}=0.5", "stall-seconds=2"])
    try:
        outcomes = [_outcome(server.url, i) for i in range(4)]
    finally:
        server.stop()
    assert outcomes == ["ok", kind, "ok", kind]


def test_metrics_503_fails_exactly_its_share_of_scrapes_and_no_request():
    server = start_simulator("original", time_scale=FAST, faults=["metrics-503=0.25"])
    try:
        statuses = [httpx.get(server.url + "/metrics").status_code for _ in range(8)]
        chat = httpx.post(server.url + "/v1/chat/completions", json=chat_body(max_tokens=2)).status_code
        stats = httpx.get(server.url + "/sim/stats").json()
    finally:
        server.stop()
    assert statuses == [200, 200, 200, 503, 200, 200, 200, 503] and chat == 200
    assert stats["faults_injected"] == {"metrics-503": 2}
