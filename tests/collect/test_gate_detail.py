"""gates.py promises its details (public evidence) "state what was observed (status, lengths, finish reason) and
never echo endpoint or model names". Since the gates stream (3ff0e14) a failed gate's detail is
``stream failed: <stream_chat error>``, and that error carries up to 200 bytes of the engine's error body
(or 80/160 of a malformed event): an unknown-model 404 puts the model name in the gate record, verbatim.
Before, the same reply gave "http 404, 0 characters, finish None". Redaction is now the only guard, and the
body is cut at a byte count, so a long name can reach the journal cut mid-way (no longer the known value).

Expected: the gate detail states status and what failed, not the engine's body."""

from __future__ import annotations

import asyncio
import json

import httpx

from evidence_kit.collect.gates import run_gate
from tests.collect.test_client import _canned_server, _reply

MODEL = "acme-internal/secret-llama-70b"


def test_a_failed_gate_does_not_echo_the_engine_error_body() -> None:
    body = json.dumps({"object": "error", "message": f"The model `{MODEL}` does not exist.", "type": "NotFoundError", "code": 404}).encode()
    url, server = _canned_server(_reply("404 Not Found", body))

    async def go() -> tuple[bool, str]:
        async with httpx.AsyncClient() as client:
            return await run_gate("smoke", client, url, MODEL, {"timeout_s": 5, "max_tokens": 8, "needle_words": 10})

    with server:
        ok, detail = asyncio.run(go())
    assert not ok and "404" in detail
    assert MODEL not in detail and "acme" not in detail, detail
