"""Distinct keys after redaction: two keys of one JSON object that take one pseudonym stay two keys.

A short host name and its FQDN are one host, so both become ``host-1``; as keys of one object
(``{"gpu-07": 0, "gpu-07.cluster.example.internal": null}``) they would become one key written
twice, and every JSON reader keeps only the last value: the redaction would lose a value. The
rewrite changes string literals only, so the redacted text has the source's tokens one for one;
walking both side by side finds each object's keys before and after, and a key that now repeats
a different key of its object is written ``host-1 (2)`` (the first free number). A key the source
itself wrote twice stays as it was.
"""

from __future__ import annotations

import json
import re

__all__ = ["may_collide", "distinct_keys"]

# A JSON text's tokens (strings first: they hold anything); whitespace between tokens is skipped.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|[{}\[\]:,]|true|false|null')


def may_collide(changed: dict[str, str], unchanged: set[str]) -> bool:
    """Whether literals rewritten as ``changed`` (source -> redacted) can make two keys one: two
    sources took one redacted literal, or a redacted literal is a literal the text already holds."""
    outputs = set(changed.values())
    return len(outputs) < len(changed) or not outputs.isdisjoint(unchanged)


def distinct_keys(source: str, redacted: str) -> str:
    """``redacted`` with every key that redaction made a repeat within its object renumbered.

    ``source`` and ``redacted`` are the same JSON text (or a run of JSON lines) before and after
    the rewrite of its string literals; where they do not pair token for token (text that is
    not JSON), ``redacted`` is returned as it is."""
    before = [m.group() for m in _TOKEN.finditer(source)]
    after = list(_TOKEN.finditer(redacted))
    if len(before) != len(after):
        return redacted
    stack: list[dict[str, str] | None] = []  # per open container: an object's keys (after -> before)
    expect_key = False
    edits: list[tuple[int, int, str]] = []
    for was, match in zip(before, after):
        token = match.group()
        first = token[0]
        if first in "{[":
            stack.append({} if first == "{" else None)
            expect_key = first == "{"
        elif first in "}]":
            if stack:
                stack.pop()
            expect_key = False
        elif first == ",":
            expect_key = bool(stack) and stack[-1] is not None
        elif first == '"' and expect_key and stack and stack[-1] is not None:
            keys = stack[-1]
            key, source_key = json.loads(token), json.loads(was)
            if key in keys and keys[key] != source_key:
                number = 2
                while f"{key} ({number})" in keys:
                    number += 1
                key = f"{key} ({number})"
                edits.append((match.start(), match.end(), f'{token[:-1]} ({number})"'))  # its escapes kept
            keys.setdefault(key, source_key)
            expect_key = False
        else:
            expect_key = False
    if not edits:
        return redacted
    pieces: list[str] = []
    last = 0
    for start, end, text in edits:
        pieces += [redacted[last:start], text]
        last = end
    return "".join(pieces) + redacted[last:]
