"""A stream's token events read by their template give exactly what parsing each of them gives.

The reference is the same reader with no template to learn (every event parsed as JSON). Streams mix the
template's events (any text: quotes, backslashes, control characters, non-ASCII, empty) with events it
must not claim: a role event, another delta field, a finish, usage, an event of another id, an event whose
head holds the same text elsewhere, and bytes cut from or put into a token event; cut into reads anywhere.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.collect.client import Outcome, _Events
from evidence_kit.collect.token_events import learn

_HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1796684902, "model": "sim-org/sim-model"}


def _token(text: str, field: str = "content", head: dict[str, Any] = _HEAD) -> str:
    return json.dumps({**head, "choices": [{"index": 0, "delta": {field: text}, "logprobs": None, "finish_reason": None}]}, separators=(",", ":"))


def _other(kind: str, text: str) -> str:
    if kind == "role":
        return json.dumps({**_HEAD, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
    if kind == "reasoning":
        return _token(text, "reasoning")
    if kind == "finish":
        return json.dumps({**_HEAD, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "length"}]})
    if kind == "usage":
        return json.dumps({**_HEAD, "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}})
    if kind == "other-id":
        return _token(text, head={**_HEAD, "id": "chatcmpl-2"})
    if kind == "same-text-in-head":  # the text once more after the delta, at the top level
        return _token(text)[:-1] + f',"content":{json.dumps(text)}}}'
    return "[DONE]"


_KINDS = ["role", "reasoning", "finish", "usage", "other-id", "same-text-in-head", "done"]
_texts = st.text(max_size=6) | st.sampled_from(["tok", " the", '"', "\\", "\n", "é", "\x00", "", "}", '"},'])
_events = st.lists(
    st.one_of(_texts.map(lambda t: ("token", t)), st.tuples(st.sampled_from(_KINDS), _texts)),
    min_size=1,
    max_size=30,
)


def _line(event: tuple[str, str], mutation: tuple[int, bytes, int] | None) -> bytes:
    kind, text = event
    line = ("data: " + (_token(text) if kind == "token" else _other(kind, text))).encode()
    if mutation is not None and kind == "token":  # ``cut`` bytes at ``at`` replaced by ``extra``
        at, extra, cut = mutation
        at %= len(line) + 1
        line = line[:at] + extra + line[at + cut :]
    return line


def _read(events: _Events, raw: bytes, cuts: list[int]) -> _Events:
    start = 0
    for n, end in enumerate([*sorted(set(c for c in cuts if 0 < c < len(raw))), len(raw)]):
        if not events.feed(raw[start:end], float(n)):
            break
        start = end
    return events


def _state(events: _Events) -> dict[str, Any]:
    out = events.out
    return {**out.record(), "token_times": out.token_times, "text": out.text, "failure": events.failure, "done": events.done}


@settings(max_examples=400, deadline=None)
@given(
    events=_events,
    mutations=st.lists(
        st.none() | st.tuples(st.integers(0, 400), st.sampled_from([b"", b'"', b"\\", b"\n", b"x", b"\xff", b"}", b'"}']), st.integers(0, 3)),
        max_size=30,
    ),
    cuts=st.lists(st.integers(0, 8000), max_size=25),
    whole=st.booleans(),
)
def test_a_template_gives_what_parsing_every_event_gives(events: list[tuple[str, str]], mutations: list[Any], cuts: list[int], whole: bool) -> None:
    lines = [_line(e, mutations[i] if i < len(mutations) else None) for i, e in enumerate(events)]
    raw = b"".join(line + b"\n\n" for line in lines)
    # Reads of whole events (as engines send them), or cut anywhere.
    if whole:
        ends = [sum(len(line) + 2 for line in lines[: i + 1]) for i in range(len(lines))]
        cuts = [ends[c % len(ends)] for c in cuts]
    fast = _read(_Events(Outcome(t_send=0.0)), raw, cuts)
    reference = _Events(Outcome(t_send=0.0))
    reference.learning = 0  # never learns a template: every event parsed
    assert _state(fast) == _state(_read(reference, raw, cuts))


def test_the_stream_s_first_token_event_is_its_template_and_a_read_of_them_is_taken_whole() -> None:
    events = _Events(Outcome(t_send=0.0))
    first = b"".join(b"data: " + e.encode() + b"\n\n" for e in (_other("role", ""), _token("Hello")))
    assert events.feed(first, 1.0) and events.template is not None
    template = events.template
    read = b"".join(b"data: " + _token(t).encode() + b"\n\n" for t in (" wor", "ld", ""))
    assert template.texts(read) == [" wor", "ld", ""]
    assert events.feed(read, 2.0) and events.out.text == "Hello world" and events.out.token_times == [1.0, 2.0, 2.0]


def test_no_template_is_learned_where_the_text_cannot_be_told_apart() -> None:
    for line in (_token('say "hi"'), _token("a\\b"), _token(""), _other("same-text-in-head", "tok"), _other("finish", "x"), _other("usage", "")):
        assert learn(b"data: " + line.encode()) is None, line
    assert learn(b"data: " + _token("tok").encode()) is not None


def test_an_event_shorter_than_its_template_is_parsed_and_fails() -> None:
    # The template's bytes before and after the text overlapping in one quote: no text there, bad JSON.
    events = _Events(Outcome(t_send=0.0))
    assert events.feed(b"data: " + _token("Hello").encode() + b"\n\n", 1.0) and events.template is not None
    head, tail = events.template.head, events.template.tail
    assert not events.feed(head + tail[1:] + b"\n\n", 2.0)
    assert events.failure is not None and events.failure.startswith("malformed stream: not JSON")
