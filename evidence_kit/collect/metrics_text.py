"""The Prometheus text format read fast: what prometheus_client's parser reads, for the plain text engines write.

The telemetry sampler reads ``/metrics`` every second of a trial, and prometheus_client's parser
reads it a character at a time: at low concurrency that was most of the collector's CPU beside its
streams (bench/collect_cpu.py). :func:`samples` reads a line with one regular expression and
follows the same families as that parser (a ``# TYPE`` line's allowed sample names, a counter's
samples named with ``_total``, a line of no family an untyped one of its own), so its answer is
the same; a line outside the plain grammar (an escape or a quote in a label value, an exemplar, a
malformed line) hands the whole text to prometheus_client, whose answer (or whose ``ValueError``)
stands. ``tests/collect/test_metrics_text.py`` holds both to the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from prometheus_client.metrics_core import METRIC_TYPES
from prometheus_client.parser import text_string_to_metric_families

__all__ = ["Sample", "samples"]

# (family type, sample name, labels, value)
Sample = tuple[str, str, dict[str, str], float]

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SAMPLE = re.compile(rf"({_NAME})(?:\{{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"\\]*\",?)*)\}})?[ \t]+([^ \t]+)(?:[ \t]+(-?[0-9]+))?")
_LABEL = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"\\]*)\"")
_COMMENT = re.compile(rf"#[ \t]+(HELP|TYPE)[ \t]+({_NAME})(?:[ \t]+(.*))?")
_ALLOWED = {"counter": ("",), "gauge": ("",), "summary": ("_count", "_sum", ""), "histogram": ("_count", "_sum", "_bucket")}


class _NotPlain(Exception):
    """A line outside the plain grammar: prometheus_client reads the text."""


def samples(text: str) -> Iterator[Sample]:
    """Every sample of an exposition, as prometheus_client's text parser yields them (``ValueError`` where it does)."""
    try:
        found = list(_plain(text))
    except _NotPlain:
        found = [(f.type, s.name, s.labels, float(s.value)) for f in text_string_to_metric_families(text) for s in f.samples]
    return iter(found)


def _family(name: str, typ: str, found: list[tuple[str, dict[str, str], float]]) -> Iterator[Sample]:
    # prometheus_client's own munging: an untyped family is "unknown", a counter family's samples are named
    # with _total, and a type it does not know is its ValueError.
    typ = "unknown" if typ == "untyped" else typ
    if typ not in METRIC_TYPES:
        raise _NotPlain
    rename = typ == "counter" and not name.endswith("_total")
    for sample, labels, value in found:
        yield typ, sample + "_total" if rename else sample, labels, value


class _Families:
    """prometheus_client's families, followed line by line: the open family's name, type and allowed sample
    names, and its samples so far."""

    def __init__(self) -> None:
        self.name, self.typ = "", "untyped"
        self.allowed: tuple[str, ...] = ()
        self.found: list[tuple[str, dict[str, str], float]] = []

    def close(self) -> Iterator[Sample]:
        if self.name:
            yield from _family(self.name, self.typ, self.found)

    def comment(self, line: str) -> Iterator[Sample]:
        parts = line.split(None, 3)
        if len(parts) < 2 or parts[1] not in ("HELP", "TYPE"):
            return  # a comment
        match = _COMMENT.fullmatch(line)
        if match is None or '"' in line or (match[1] == "TYPE" and not match[3]):
            raise _NotPlain
        if match[2] != self.name:  # a new family
            yield from self.close()
            self.name, self.found = match[2], []
            self.typ, self.allowed = "untyped", (match[2],)
        if match[1] == "TYPE":
            if len(match[3].split()) != 1:
                raise _NotPlain  # prometheus_client takes the rest of the line as the type
            self.typ = match[3].strip()
            self.allowed = tuple(self.name + suffix for suffix in _ALLOWED.get(self.typ, ("",)))

    def sample(self, line: str) -> Iterator[Sample]:
        sample = _sample(line)
        if sample[0] in self.allowed:
            self.found.append(sample)
            return
        yield from self.close()  # a sample of no open family: an untyped one of its own
        self.name, self.typ, self.allowed, self.found = "", "untyped", (), []
        yield "unknown", *sample


def _plain(text: str) -> Iterator[Sample]:
    families = _Families()
    for raw in text.split("\n"):  # as a StringIO reads it: lines end at a newline alone
        line = raw.strip()
        if line:
            yield from families.comment(line) if line.startswith("#") else families.sample(line)
    yield from families.close()


def _sample(line: str) -> tuple[str, dict[str, str], float]:
    match = _SAMPLE.fullmatch(line)
    if match is None or "_" in match[3]:
        raise _NotPlain
    labels = dict(_LABEL.findall(match[2])) if match[2] else {}
    if match[2] and (len(labels) != match[2].count("=") or "__name__" in labels):
        raise _NotPlain  # a label named twice, or the name given as a label
    try:
        value = float(match[3])
    except ValueError:
        raise _NotPlain from None
    return match[1], labels, value
