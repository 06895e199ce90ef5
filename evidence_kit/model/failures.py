"""What a failed request's reason and an engine's finish reason are published as: one word each.

A collector, an importer or another client writes why a request failed in its own words, and those
words may hold what the engine said (``http 404: The model `acme/llama-70b` does not exist``) or
where it runs (``Cannot connect to host gpu-node-17:8000``). A bundle publishes the reason as the
one word of :data:`FAILURE` it reduces to (and the reply's ``http_status`` beside it); a finish
reason the engine sent, as the word of :data:`FINISH`. Reducing a word gives the word itself, so
a reason already published stays as it is.
"""

from __future__ import annotations

import re

from .publication import Vocabulary

__all__ = ["FAILURE", "FINISH", "NOT_SENT", "failure_code", "finish_code"]

NOT_SENT = "not-sent"
FAILURE_WORDS: tuple[str, ...] = (
    "timeout",
    "disconnected",
    "refused",
    "transport",
    "http-4xx",
    "http-5xx",
    "http-other",
    "invalid-response",
    "incomplete",
    "engine-error",
    "aborted",
    NOT_SENT,
    "cancelled",
    "other",
)
_HTTP = re.compile(r"^http\s*:?\s*([0-9]{3})\b", re.IGNORECASE)
# (word, what a reason starts with or holds), first match wins; the collector's own prefixes first.
_BY_TEXT: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (NOT_SENT, ("not sent",), ()),
    ("timeout", ("timeout",), ("timed out", "timeouterror", "readtimeout", "timeout error")),
    ("disconnected", ("disconnected",), ("server disconnected", "connection reset", "remoteprotocolerror", "serverdisconnected", "broken pipe")),
    ("refused", ("transport: connecterror",), ("connection refused", "cannot connect", "connecterror", "clientconnectorerror")),
    ("transport", ("transport",), ()),
    ("invalid-response", ("malformed stream",), ("not valid json", "jsondecodeerror", "invalid response")),
    ("incomplete", ("stream ended without", "incomplete"), ()),
    ("engine-error", ("error event",), ()),
    ("aborted", ("engine finished the request with finish_reason",), ()),
    ("cancelled", ("cancelled", "canceled"), ("was cancelled", "cancellederror")),
)


def failure_code(text: str) -> str:
    """The word of :data:`FAILURE` a failed request's reason reduces to (``other`` when none fits)."""
    if text in FAILURE_WORDS:
        return text
    lowered = text.strip().lower()
    http = _HTTP.match(lowered)
    if http:
        return {"4": "http-4xx", "5": "http-5xx"}.get(http.group(1)[0], "http-other")
    for word, starts, holds in _BY_TEXT:
        if lowered.startswith(starts) or any(part in lowered for part in holds):
            return word
    return "other"


FAILURE = Vocabulary(
    "failure",
    FAILURE_WORDS,
    failure_code,
    "why a request failed: its transport, its HTTP status class, or what went wrong in its stream",
)

FINISH_WORDS: tuple[str, ...] = ("stop", "length", "tool_calls", "content_filter", "function_call", "abort", "error", "other")


def finish_code(text: str) -> str:
    """An engine's finish reason as OpenAI's API and vLLM name them; any other word is ``other``."""
    return text if text in FINISH_WORDS else "other"


FINISH = Vocabulary("finish", FINISH_WORDS, finish_code, "why the engine ended its answer, as OpenAI's API and vLLM name it")
