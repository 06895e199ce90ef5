"""A worker process whose replies are malformed or forged: the collector must fail the run in one line
(WorkerFailed naming the worker), never crash with another exception, never journal a short or relabelled run."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap

import pytest

from evidence_kit.collect import workers as W
from evidence_kit.collect.client import Outcome
from evidence_kit.collect.runs import record_of

# A request's timing record of the shape every worker writes (tests/collect/test_pool_replies.py: the pool refuses any other).
RECORD = json.dumps({"t_send_s": 0.0, **Outcome(t_send=0.0).record()}, separators=(",", ":"))


def _fake(reply_for_index: str) -> str:
    """A worker that answers every send with the line ``reply_for_index`` (``{i}`` is the index)."""
    return textwrap.dedent(f"""
        import json, sys
        for line in sys.stdin:
            m = json.loads(line)
            if m["op"] == "send":
                sys.stdout.write({reply_for_index!r}.replace("{{i}}", str(m["index"])) + "\\n"); sys.stdout.flush()
    """)


async def _send(script: str, n: int = 3) -> list:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        script,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=W.PROTOCOL_LIMIT,
    )
    worker = W._Worker(0, process)
    try:
        return await asyncio.wait_for(W.WorkerPool([worker]).send_all("http://x", [{}] * n, concurrency=1, timeout=1.0), 60)
    finally:
        await worker.close()


@pytest.mark.parametrize("reply", ["[]", '"done"', '{"op":"done","index":[{i}]}'], ids=["list", "string", "unhashable-index"])
def test_non_object_reply_is_a_worker_failure(reply: str) -> None:
    """Valid JSON that is not an object (or an unhashable index): TypeError escapes _read's except, and
    the failure then says the worker 'exited' while it is alive."""
    with pytest.raises(W.WorkerFailed) as err:
        asyncio.run(_send(_fake(reply)))
    # Expected: "worker 0 (pid N) sent a malformed reply (...)", not "exited".
    assert "malformed" in str(err.value), str(err.value)


def test_done_without_record_is_a_worker_failure() -> None:
    """{"op":"done","index":i} without "record": KeyError in the slot, out of the TaskGroup as an
    ExceptionGroup (except* catches WorkerFailed only): a traceback instead of a one-line failure."""
    try:
        asyncio.run(_send(_fake('{"op":"done","index":{i}}')))
    except W.WorkerFailed:
        return
    except BaseException as other:  # noqa: BLE001
        pytest.fail(f"expected WorkerFailed, got {type(other).__name__}: {other}")
    pytest.fail("expected WorkerFailed, got records")


def test_null_record_is_not_silently_dropped() -> None:
    """{"record": null} for a request: send_all drops it, returns 2 records for 3 bodies, and
    measure_run then relabels them index 0,1 with keys run/0, run/1 (enumerate), losing request 2 unnoticed."""
    script = _fake('{"op":"done","index":{i},"record":' + RECORD + "}").replace(
        'str(m["index"])) + "\\n"', 'str(m["index"])).replace(' + repr(RECORD) + ', "null" if m["index"] == 1 else ' + repr(RECORD) + ') + "\\n"'
    )
    try:
        got = asyncio.run(_send(script))
    except W.WorkerFailed:
        return
    # Expected: WorkerFailed (a reply without a record), never fewer records than bodies.
    assert len(got) == 3, f"{len(got)} records for 3 bodies"


def test_worker_record_cannot_override_the_collectors_fields() -> None:
    """record_of spreads the worker's timing fields last: a worker record carrying index/key/run/warmup
    overrides what the collector assigned."""
    rec = record_of(
        {"t_send_s": 0.1, "ok": True, "index": 7, "warmup": True, "key": "other/7"},
        run="r",
        repetition=0,
        input_nominal=1,
        concurrency=1,
        index=0,
        warmup=False,
        key="r/0",
    )
    # Expected: the collector's index, key and warmup win (or the reply is refused as malformed).
    assert (rec["index"], rec["warmup"], rec["key"]) == (0, False, "r/0"), rec


def test_worker_exiting_0_mid_run_is_a_one_line_failure() -> None:
    """Held: a worker that exits 0 after its first reply fails the run, naming status 0."""
    script = _fake('{"op":"done","index":{i},"record":' + RECORD + "}").replace("sys.stdout.flush()", "sys.stdout.flush(); sys.exit(0)")
    with pytest.raises(W.WorkerFailed, match="exited with status 0"):
        asyncio.run(_send(script))


def test_reply_over_the_protocol_limit_is_a_malformed_reply() -> None:
    """Held: a line longer than PROTOCOL_LIMIT is 'sent a malformed reply', not a hang or a MemoryError."""
    script = textwrap.dedent("""
        import sys
        for line in sys.stdin:
            sys.stdout.write("x" * (65 * 1024 * 1024)); sys.stdout.flush()
    """)
    with pytest.raises(W.WorkerFailed, match="malformed"):
        asyncio.run(_send(script, n=1))
