"""What each public string of the contract's records may hold when it is published.

A public field is published as it is, so its type must say what it holds, or a record could carry an
operator's string (a host, an address, a path) into the bundle untouched: an attacker's host in
``started_at`` or ``engine.version`` once was. Each public string of a contract record names one of
these, as ``Annotated`` metadata the redactor checks (:mod:`evidence_kit.redact.records`):

- a :class:`~.formats.shapes.Shape`: timestamps, versions, run names, request keys, digests, dates;
- a :class:`~.formats.shapes.Words` vocabulary: gate and check names, gate targets, KV cache types;
- :data:`COMPOSED`: a sentence the collector composes from its own words and numbers (a gate's or a
  check's detail, a run's mismatches): every word of it is a word of evidence-kit's own source
  (:data:`~.composed_words.COMPOSED_WORDS`), every other token a number.

Reading evidence does not check them (a bundle that verifies today still verifies); publishing does:
a value that does not fit is left out where the field may be absent, else it is bad input.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from typing import get_args

from .composed_words import COMPOSED_WORDS
from .engine_kinds import ENGINE_KINDS
from .failures import FAILURE_WORDS, FINISH_WORDS
from .formats.shapes import VERSION, Shape, Words
from .formats.vocabulary import CacheDType
from .telemetry import COUNTER_NAMES

__all__ = [
    "CACHE_DTYPES",
    "CHECK_NAMES",
    "COMPOSED",
    "GATE_NAMES",
    "GATE_TARGETS",
    "ISO_DATE",
    "REQUEST_KEY",
    "RUN_NAME",
    "SHA256",
    "TIMESTAMP",
    "VERSION",
    "Composed",
    "composed_tokens",
]

# The collector's RFC 3339 times; an importer's copy of its tool's local time (no zone), or its "not recorded".
TIMESTAMP = Shape(
    "timestamp",
    r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?|not recorded)$",
    "an RFC 3339 time (2026-11-01T09:00:00Z), one without its zone, or not recorded",
)
_RATE = r"rate[0-9]{1,17}(?:\.[0-9]{1,17})?(?:e[+-]?[0-9]{1,3})?"
_RUN = rf"(?:warmup|r[0-9]{{1,6}}-[0-9]{{1,9}}-(?:c[0-9]{{1,6}}|{_RATE}))"
RUN_NAME = Shape("run name", rf"^{_RUN}$", "warmup, or the collector's r<repetition>-<input tokens>-c<concurrency> (-rate<rate>)")
REQUEST_KEY = Shape(
    "request key",
    rf"^{_RUN}/(?:[0-9]{{1,9}}(?:/turn[0-9]{{1,4}})?|prime-[0-9]{{1,9}})$",
    "<run name>/<index>, /<conversation>/turn<k> for a conversation's later turns, /prime-<prefix> for a prefix's priming request",
)
SHA256 = Shape("sha256", r"^[0-9a-f]{64}$", "64 lower-case hex digits")
ISO_DATE = Shape("date", r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "an ISO date: 2026-11-01")

GATE_NAMES = Words("gate", frozenset({"smoke", "json", "needle", "tools", "streaming-tools", "tool-result"}), "the collector's gates")
GATE_TARGETS = Words("gate target", frozenset({"direct", "routed"}), "direct, or routed")
CHECK_NAMES = Words(
    "check",
    frozenset(
        {
            "candidate-removed",
            "engine-kind",
            "identity-equality",
            "prefix-cache",
            "process-stable",
            "readmission",
            "ready",
            "resumed",
            "spec-decode-active",
            "stop",
        }
    ),
    "the collector's lifecycle checks",
)
CACHE_DTYPES = Words("KV cache type", frozenset(get_args(CacheDType)), "vLLM's CacheDType words and bf16, fp16")

# A token is what stands between spaces and punctuation; `.`, `-`, `_` and `:` stay inside it, so a host
# (`gpu-node-17.lab`), a dotted address, a MAC or IPv6 address (`00:1f:ab:…`) or a file name is one token,
# never a run of harmless words and numbers; a sentence's `.` and a label's `:` at its end are dropped.
_SPLIT = re.compile(r"[\s()\[\]{},;\"'`!?=<>|/\\*#&@$^~]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]{1,24}(?:\.[0-9]{1,24})?|\.[0-9]{1,24})(?:e[+-]?[0-9]{1,3})?(?:%|s|ms|x)?")
_RANGE = re.compile(rf"{_NUMBER.pattern}(?:-{_NUMBER.pattern})?")


def composed_tokens(text: str) -> list[str]:
    """The tokens of ``text`` a :class:`Composed` vocabulary judges (a sentence's closing dot dropped)."""
    return [token for part in _SPLIT.split(text) if (token := part.strip(".:"))]


@dataclass(frozen=True)
class Composed(Words):
    """A sentence of a closed vocabulary's words and numbers (up to three-part dotted numbers, ranges)."""

    def fits(self, value: str) -> bool:
        return all(token.casefold() in self.words or _RANGE.fullmatch(token) for token in composed_tokens(value))


# Python's own type and exception names, which a message names a parsed value or a failure by (`JSON dict`).
_PYTHON = frozenset(name.casefold() for name, value in vars(builtins).items() if isinstance(value, type) and not name.startswith("_"))
# The literals' words, and the words the model's vocabularies give the messages (a finish reason, a counter's
# name, an engine kind).
COMPOSED = Composed(
    "collector sentence",
    COMPOSED_WORDS | frozenset(FAILURE_WORDS) | frozenset(FINISH_WORDS) | frozenset(COUNTER_NAMES) | frozenset(ENGINE_KINDS) | _PYTHON,
    "words of evidence-kit's own messages, and numbers",
)
