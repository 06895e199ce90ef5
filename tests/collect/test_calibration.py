"""Prompt sizing against a real HTTP engine that has no /tokenize and a short context."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from evidence_kit.collect.calibration import calibrate
from evidence_kit.collect.prompts import PromptBook

CONTEXT = 1024
OVERHEAD = 17  # chat template tokens


def _tokens(messages: list[dict[str, str]]) -> int:
    """This engine's tokenizer: 4 tokens per 3 words, plus the template."""
    words = sum(len(m["content"].split()) for m in messages)
    return OVERHEAD + (4 * words) // 3


class _ShortContextEngine(BaseHTTPRequestHandler):
    """OpenAI-compatible chat with usage; /tokenize is not served; long prompts are refused (400).

    Usage comes only in a streamed reply's last event (``stream_options.include_usage``), as
    the timed requests read it; a non-streamed request gets a reply without usage.
    """

    bodies: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if self.path != "/v1/chat/completions":
            return self._reply(404, {"detail": "Not Found"})
        self.bodies.append(body)
        prompt = _tokens(body["messages"])
        if prompt + body.get("max_tokens", 16) > CONTEXT:
            return self._reply(400, {"error": {"message": f"maximum context length is {CONTEXT} tokens"}})
        if not body.get("stream"):
            return self._reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "length"}]})
        usage = {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt + 1}
        events = [{"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "length"}]}, {"choices": [], "usage": usage}]
        data = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode() + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _reply(self, status: int, doc: dict) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def test_a_short_context_engine_without_tokenize_is_calibrated_from_usage() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ShortContextEngine)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def go():
        async with httpx.AsyncClient() as client:
            return await calibrate(client, f"http://127.0.0.1:{server.server_address[1]}", "m", "Summarise.", 7)

    try:
        calibration = asyncio.run(go())  # 2,000 words (~2,700 tokens) do not fit: it used fewer
    finally:
        server.shutdown()
    assert calibration.method == "usage" and calibration.calibration_words < 2000
    assert _ShortContextEngine.bodies and all(b["stream"] for b in _ShortContextEngine.bodies)
    assert abs(calibration.tokens_per_word - 4 / 3) < 0.01
    # A prompt sized with it lands on its target in this engine's own count.
    book = PromptBook("Summarise.", 7, calibration)
    assert abs(_tokens(book.messages("r1-512-c1/0", 512)) - 512) <= 3
