"""(Pre-existing in stream_chat, now on the gates' and calibration's path too.) A stream whose ``usage`` carries
a token count of the wrong type or sign (a gateway that re-serialises it, ``"prompt_tokens": "12"``) is a
*successful* Outcome; its request record then fails the journal writer's validation with BadInput, raised
out of ``measure_run``/``warmup``: the collect aborts with exit 2 (the code for "bad plan or output folder")
and an unlocated "field 'prompt_tokens'" line. The smoke gate, which now streams, passes such an engine first.

Expected (the module's own promise: "every failure ... comes back as an Outcome with error set, never as an
exception"): a failed Outcome ("malformed stream: unexpected usage ..."), journalled as a failed request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.collect.journal_writer import JournalWriter
from evidence_kit.collect.runs import request_record
from tests.collect.test_client import _canned_sse_server, stream

CHUNK = {"id": "x", "object": "chat.completion.chunk", "model": "m"}


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": "12", "completion_tokens": 3},
        {"prompt_tokens": -1, "completion_tokens": 3},
        {"prompt_tokens": 12, "completion_tokens": 2.5},
        {"prompt_tokens": 12, "completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": "x"}},
    ],
    ids=["string", "negative", "float", "reasoning-string"],
)
def test_a_stream_with_malformed_usage_is_a_failed_request_not_an_exception(tmp_path: Path, usage: dict) -> None:
    events = [
        json.dumps({**CHUNK, "choices": [{"index": 0, "delta": {"content": "hi"}}]}),
        json.dumps({**CHUNK, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        json.dumps({**CHUNK, "choices": [], "usage": usage}),
        "[DONE]",
    ]
    url, server = _canned_sse_server(events)
    with server:
        out = stream(url)
    record = request_record(out, run="r1-1-c1", repetition=1, input_nominal=1, concurrency=1, index=0, warmup=False, key="r1-1-c1/0", t0=0.0)
    JournalWriter(tmp_path / "j.jsonl").add(record)  # raises BadInput today
    assert not out.ok and "usage" in (out.error or "")
