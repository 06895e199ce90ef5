"""A stream's token events read by their bytes, not parsed one by one.

An engine streams one event per step, and within one stream its token events differ only in their text:
``data: {"id":"chatcmpl-1",...,"choices":[{"index":0,"delta":{"content":"<text>"},"logprobs":null,
"finish_reason":null}]}``. Once the stream's first such event has been parsed, the bytes around its text are
the stream's :class:`Template` (:func:`learn`). A network read that holds nothing but whole events of that
template, each text plain (no quote, backslash or control byte: a JSON string that stands for itself, in
valid UTF-8), gives its texts in a few C calls (:meth:`Template.texts`) instead of a JSON parse and a walk of
each event: 54 events a request against the simulator, a quarter of the read path's instructions in a replay
of its replies (bench/results/speed-2026-12-08.md). Anything else (a role or finish event, usage, a read that ends inside an
event, a text with an escape) is parsed as before.

Why the texts are the ones a parse would give: a read that passes is the template's bytes with other plain
bytes in one place, and the learned template was checked to hold exactly the delta's text there (its event
parsed again with the text left out is the same event with an empty text). Plain bytes inside a JSON string
only extend that string, so each event parses to the learned one with its text replaced.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json

__all__ = ["Template", "learn", "TEXT_KEYS"]

# The delta fields that carry a token's text: content, and reasoning as vLLM (``reasoning``) and others
# (``reasoning_content``) stream it.
TEXT_KEYS = ("content", "reasoning", "reasoning_content")
# Bytes a JSON string cannot hold as themselves: a quote ends it, a backslash escapes, control bytes are refused.
_NOT_PLAIN = bytes(range(32)) + b'"\\'


class Template:
    """One stream's token event: its bytes before the text (``head``, from ``data:``) and after it (``tail``),
    and whether the text is content (else reasoning)."""

    __slots__ = ("head", "tail", "content", "_end", "_separator", "_size")

    def __init__(self, head: bytes, tail: bytes, content: bool):
        self.head, self.tail, self.content = head, tail, content
        # Between one event's text and the next one's, in a read of whole events: SSE's blank line between.
        self._end = tail + b"\n\n"
        self._separator = self._end + head
        self._size = len(head) + len(tail) + 2

    def text(self, line: bytes) -> str | None:
        """The text of ``line`` (one SSE line) when it is an event of this template with a plain text; else ``None``."""
        if len(line) < self._size - 2 or not line.startswith(self.head) or not line.endswith(self.tail):
            return None
        middle = line[len(self.head) : len(line) - len(self.tail)]
        if len(middle.translate(None, _NOT_PLAIN)) != len(middle):
            return None
        try:
            return middle.decode()
        except UnicodeDecodeError:
            return None

    def texts(self, data: bytes) -> list[str] | None:
        """The texts of ``data``'s events, in order, when ``data`` is whole events of this template and nothing
        else (each ended by its blank line), every text plain; else ``None``."""
        if len(data) < self._size or not data.startswith(self.head) or not data.endswith(self._end):
            return None
        if data.find(b"\n", len(self.head)) == len(data) - 2:
            pieces = [data[len(self.head) : len(data) - len(self._end)]]  # one event (most reads)
        else:
            # Cut after each event (the end is short enough to be searched for without a search table, as a
            # head would need), each event's head taken off: the read must then be those events and nothing else.
            start = len(self.head)
            pieces = [event[start:] for event in data.split(self._end)[:-1]]
            if self.head + self._separator.join(pieces) + self._end != data:
                return None
        joined = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        if len(joined.translate(None, _NOT_PLAIN)) != len(joined):
            return None
        try:
            return list(map(bytes.decode, pieces))
        except UnicodeDecodeError:
            return None  # (a parse refuses it too: the events' own parse says so)


def learn(line: bytes) -> Template | None:
    """The template of ``line`` (one SSE ``data:`` line) when it is a token event whose text can be told
    apart from the rest of its bytes; else ``None``."""
    try:
        event = from_json(line[5:].strip())
    except ValueError:
        return None
    text = _token_text(event)
    if text is None:
        return None
    key, value = text
    raw = value.encode()
    if raw.translate(None, _NOT_PLAIN) != raw:
        return None
    slot = b'"' + key.encode() + b'":"' + raw + b'"'
    at = line.rfind(slot)
    if at < 0:
        return None
    head, tail = line[: at + len(slot) - len(raw) - 1], line[at + len(slot) - 1 :]
    # The same event with its text left out must parse as that: the bytes at the slot are the delta's text
    # (not an equal string elsewhere in the event, nor one a later key overrides).
    choice = event["choices"][0]
    try:
        if from_json((head + tail)[5:].strip()) != {**event, "choices": [{**choice, "delta": {key: ""}}]}:
            return None
    except ValueError:
        return None
    return Template(head, tail, key == "content")


def _token_text(event: Any) -> tuple[str, str] | None:
    """(field, text) of an event that is one choice's delta of one non-empty text and nothing else: no usage,
    no error, no finish reason, no tool call."""
    if not isinstance(event, dict) or event.get("usage") or "error" in event:
        return None
    choices = event.get("choices")
    if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    delta = choice.get("delta")
    if choice.get("finish_reason") or not isinstance(delta, dict) or len(delta) != 1:
        return None
    ((key, value),) = delta.items()
    if key not in TEXT_KEYS or not isinstance(value, str) or not value:
        return None
    return key, value
