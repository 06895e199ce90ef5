"""Replies a worker (a Ray actor or a process: the pool is the same) may send that are well-formed
objects and still no measurement. The pool must refuse each as a malformed reply (WorkerFailed, one line), never
journal it, never crash later with another exception.

The replies are handed to the real :class:`~evidence_kit.collect.workers.WorkerPool` by a Handle that answers
from a script: what reaches the pool through Ray is the actor's return value, unchecked by Ray.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import pytest

from evidence_kit.collect.workers import Handle, WorkerFailed, WorkerPool

GOOD = {
    "ok": True,
    "error": None,
    "http_status": 200,
    "prompt_tokens": 10,
    "completion_tokens": 4,
    "reasoning_tokens": None,
    "e2e_s": 0.02,
    "ttft_s": 0.01,
    "ttft_content_s": 0.01,
    "last_token_s": 0.02,
    "headers_s": 0.005,
    "send_wait_s": 0.0,
    "finish_reason": "length",
    "token_events": 4,
    "itl_us": [1, 2, 3],
}


class _Scripted(Handle):
    """A worker on another node whose every 'send' is answered with ``record`` (and 'open' with ``opened``)."""

    def __init__(self, record: dict[str, Any] | None = None, opened: dict[str, Any] | None = None):
        self.number, self.same_machine = 0, False
        self.record, self.opened = record, opened

    async def ask(self, message: dict[str, Any], reply: Any, timeout: float) -> dict[str, Any]:
        if message["op"] == "open":
            return {"op": "opened", **(self.opened or {})}
        return {"op": "done", "index": message["index"], "record": dict(self.record or {})}


def _send(record: dict[str, Any]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        pool = WorkerPool([_Scripted(record)], t0=time.monotonic() - 1.0)  # the arm began a second ago
        return await pool.send_all("http://127.0.0.1:1/v1/chat/completions", [{}] * 3, concurrency=1, timeout=1.0)

    return asyncio.run(go())


def test_a_well_formed_record_is_taken() -> None:
    """Held: the shape a worker sends is taken as it is (the test's baseline)."""
    got = _send({**GOOD, "t_send_s": 0.0})
    assert len(got) == 3 and got[0]["ok"] is True


def test_a_long_wait_before_the_send_is_no_time_after_the_reply() -> None:
    """Held (found by the full suite under load): ``send_wait_s`` is the wait *before* the send, so a record
    sent just now after a long wait (0.9 s, the arm began 1 s ago) ends before its reply and is taken."""
    got = _send({**GOOD, "t_send_s": 0.97, "send_wait_s": 0.9})
    assert len(got) == 3 and got[0]["send_wait_s"] == 0.9


@pytest.mark.parametrize("t_send", [math.nan, math.inf], ids=["nan", "inf"])
def test_a_send_time_that_is_not_finite_is_a_malformed_reply(t_send: float) -> None:
    """NaN passes `< 0` and isinstance float: it was placed on the arm's clock as NaN (the journal writer then
    refuses it with a ValueError, or a run with a NaN send time is kept)."""
    with pytest.raises(WorkerFailed, match="malformed reply"):
        _send({**GOOD, "t_send_s": t_send})


def test_a_send_time_after_the_reply_came_is_a_malformed_reply() -> None:
    """A lying clock: the actor says it sent the request 1000 s after the arm began, but its reply came within
    a second. Only durations cross machines, and this one cannot be true on any of them."""
    with pytest.raises(WorkerFailed, match="malformed reply"):
        _send({**GOOD, "t_send_s": 1000.0})


@pytest.mark.parametrize(
    "record",
    [
        {"t_send_s": 0.0},
        {**GOOD, "t_send_s": 0.0, "e2e_s": math.nan},
        {**GOOD, "t_send_s": 0.0, "e2e_s": -1.0},
        {**GOOD, "t_send_s": 0.0, "ok": "yes"},
        {**GOOD, "t_send_s": 0.0, "node_hostname": "gpu-node-17"},
        {**GOOD, "t_send_s": 0.0, "itl_us": [1, True, 3]},
        {**GOOD, "t_send_s": 0.0, "itl_us": [1, -2, 3]},
        {**GOOD, "t_send_s": 0.0, "itl_us": [1, 2.5, 3]},
        {**GOOD, "t_send_s": 0.0, "itl_us": "1,2,3"},
    ],
    ids=[
        "no-fields",
        "nan-duration",
        "negative-duration",
        "ok-not-bool",
        "extra-field",
        "gap-bool",
        "gap-negative",
        "gap-fraction",
        "gaps-not-a-list",
    ],
)
def test_a_record_not_of_the_journal_shape_is_a_malformed_reply(record: dict[str, Any]) -> None:
    """A record missing the fields every request record has (client_sums then raised KeyError: a traceback), with a
    duration no clock gives, or with a field local workers never write (a journal shape of its own, and a field
    no private-value rule knows)."""
    with pytest.raises(WorkerFailed, match="malformed reply"):
        _send(record)


@pytest.mark.parametrize("opened", [{}, {"answered": "2"}, {"answered": 99}], ids=["missing", "string", "more-than-asked"])
def test_an_open_reply_without_a_count_of_its_lanes_is_a_malformed_reply(opened: dict[str, Any]) -> None:
    """`int(reply["answered"])`: a KeyError (a traceback) or a count of connections the worker was never asked to open."""

    async def go() -> int:
        return await WorkerPool([_Scripted(opened=opened)]).open_connections("http://127.0.0.1:1", 2)

    with pytest.raises(WorkerFailed, match="malformed reply"):
        asyncio.run(go())
