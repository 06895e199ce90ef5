"""Walk one file's structure and redact what it holds: JSON, JSONL, text, names.

JSON is parsed (to refuse malformed input with its line) and then rewritten at
the level of its string literals: every key and every string value goes through
the matcher, and everything between them (numbers, ``true``/``false``/``null``,
punctuation, white space) is copied byte for byte. That is why every timing and
count stays exactly equal. JSONL is streamed line by line; text line by line,
keeping its line endings; file and folder names component by component.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Iterator

from pydantic_core import from_json

from ..errors import BadInput
from .matcher import Matcher

__all__ = [
    "BINARY_SUFFIXES",
    "file_kind",
    "literals",
    "redact_file",
    "redact_name",
    "redact_json_text",
    "open_text",
    "LineRecord",
    "plain_literals",
    "clean_key",
]

JSON_SUFFIXES = frozenset({".json", ".dsse", ".har", ".ipynb"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
BINARY_SUFFIXES = frozenset(
    {
        ".gz", ".tgz", ".zip", ".xz", ".zst", ".zstd", ".bz2", ".lz4", ".7z", ".tar", ".rar",
        ".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".npy", ".npz", ".parquet", ".arrow",
        ".pkl", ".pickle", ".onnx", ".gguf", ".so", ".o", ".a", ".exe", ".dll", ".sqlite", ".db",
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".pdf", ".woff", ".woff2", ".ttf",
        ".nsys-rep", ".qdrep", ".sqlite3", ".core",
    }
)
_MAGIC = (b"\x1f\x8b", b"PK\x03\x04", b"\x28\xb5\x2f\xfd", b"\xfd7zXZ", b"BZh", b"\x89PNG", b"\x7fELF", b"%PDF")
_LITERAL = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')


def file_kind(path: Path) -> str:
    """``json``, ``jsonl``, ``text`` or ``binary`` (by suffix, then by the first bytes)."""
    suffix = path.suffix.lower()
    if suffix in BINARY_SUFFIXES:
        return "binary"
    with path.open("rb") as handle:
        head = handle.read(8192)
    if b"\0" in head or head.startswith(_MAGIC):
        return "binary"
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in JSON_SUFFIXES:
        return "json"
    return "text"


def open_text(path: Path, mode: str = "r"):  # type: ignore[no-untyped-def]
    """Open text so that any byte round-trips and line endings stay as written."""
    return path.open(mode, encoding="utf-8", errors="surrogateescape", newline="")


def plain_literals(text: str) -> list[str] | None:
    """The contents of every string literal of one JSON line, found by splitting at quotes.

    Exactly what :data:`_LITERAL` finds when the text holds no backslash and no line
    break before its end (literals then run from one quote to the next), at half the
    cost; ``None`` otherwise (use the pattern). Contents are not quoted, so they can
    share a set with quoted escaped literals without ever being equal to one.
    """
    if "\\" in text:
        return None
    newline = text.find("\n")
    if newline != -1 and newline != len(text) - 1:
        return None
    parts = text.split('"')
    quotes = len(parts) - 1
    return parts[1:quotes - quotes % 2:2]  # an odd last quote opens nothing


def clean_key(raw: str) -> str:
    """How a literal found clean is remembered: its contents when unescaped, else as written."""
    return raw if "\\" in raw else raw[1:-1]


def literals(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, decoded)`` of every string literal (keys too) in valid JSON text."""
    for match in _LITERAL.finditer(text):
        raw = match.group()
        yield match.start(), match.end(), json.loads(raw) if "\\" in raw else raw[1:-1]


def _encode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)  # a lone surrogate from a \\uD800 escape: keep it escaped
    return json.dumps(value, ensure_ascii=False)


class _Literals:
    """Per-literal cache in front of the matcher: most literals of a journal repeat."""

    def __init__(self, matcher: Matcher):
        self.matcher = matcher
        self.generation = matcher.generation
        self.cache: dict[str, tuple[str | None, tuple[tuple[str, int], ...]]] = {}
        self.clean: set[str] = set()

    def rewrite(self, text: str, counts: Counter[str]) -> str:
        if self.generation != self.matcher.generation or len(self.cache) + len(self.clean) > 200_000:
            self.cache.clear()
            self.clean.clear()
            self.generation = self.matcher.generation
        plain = plain_literals(text)
        if plain is not None and self.clean.issuperset(plain):
            return text  # the common journal line: every string already known to be clean
        pieces: list[str] = []
        last = 0
        for match in _LITERAL.finditer(text):
            raw = match.group()
            known = self.cache.get(raw)
            if known is None:
                decoded = json.loads(raw) if "\\" in raw else raw[1:-1]
                out, found = self.matcher.redact(decoded)
                known = (None if out == decoded else _encode(out), tuple(found.items()))
                if known[0] is None and not found:
                    self.clean.add(clean_key(raw))
                self.cache[raw] = known
            if known[0] is not None:
                pieces += [text[last:match.start()], known[0]]
                last = match.end()
                counts.update(dict(known[1]))
        return "".join(pieces) + text[last:] if pieces else text


def redact_json_text(text: str, matcher: Matcher, counts: Counter[str]) -> str:
    """Redact the string literals of one JSON text; everything else is kept byte for byte."""
    return _Literals(matcher).rewrite(text, counts)


def _load_json(text: str, src: Path, line: int | None = None) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON ({err.msg})", src, line if line is not None else err.lineno) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", src, line) from None


_JITER_POSITION = re.compile(r" at line [0-9]+ column [0-9]+$")


def _check_jsonl_line(text: str, src: Path, line: int) -> None:
    """Refuse a malformed JSONL line. pydantic-core's parser (jiter) accepts what ``json.loads``
    accepts, NaN included, at about a third of the cost: this check runs on every line."""
    try:
        from_json(text)
    except ValueError as err:
        raise BadInput(f"not valid JSON ({_JITER_POSITION.sub('', str(err))})", src, line) from None


class LineRecord:
    """What a line-by-line rewrite leaves for the next round, to copy lines instead of redoing them.

    A round is redone when a file taught the matcher a new value, yet most of its
    lines were already rewritten with the final table. For each run of lines the
    record keeps the matcher generation the output was computed at, or -1 when
    the generation changed during the line (it taught a value) and the line must
    be redone. A line computed at generation ``g`` without changing it is exactly
    what a rewrite at ``g`` gives again: the rewrite is a function of the line and
    the table, pseudonyms are fixed per value, and the table changes only with the
    generation. ``counts`` holds the replacements of those lines per generation.
    """

    def __init__(self) -> None:
        self.runs: list[tuple[int, int]] = []  # (first line number, generation or -1)
        self.counts: dict[int, Counter[str]] = {}
        self.aligned = True  # every output line ends where its input line ends

    def add(self, number: int, generation: int, found: Counter[str] | None) -> None:
        if not self.runs or self.runs[-1][1] != generation:
            self.runs.append((number, generation))
        if generation >= 0 and found:
            self.counts.setdefault(generation, Counter()).update(found)

    def reusable(self, generation: int) -> bool:
        """True when some line's output holds for ``generation`` and can be copied."""
        return self.aligned and any(g == generation for _, g in self.runs)

    def generations(self) -> Iterator[int]:
        """The generation of each line in order (the last run's past its end; the caller stops at EOF)."""
        runs = self.runs
        index, number = 0, 1
        while True:
            while index + 1 < len(runs) and runs[index + 1][0] <= number:
                index += 1
            yield runs[index][1] if runs and runs[index][0] <= number else -1
            number += 1


class _Misaligned(Exception):
    """The earlier output does not line up with the input: redo the file from scratch."""


def redact_file(src: Path, dst: Path, kind: str, matcher: Matcher,
                record: LineRecord | None = None, previous: tuple[Path, LineRecord] | None = None) -> Counter[str]:
    """Write the redacted copy of ``src`` to ``dst``; return replacements per class.

    For line-based files, ``record`` (if given) is filled for the next round, and
    ``previous`` (the earlier output of the same file and its record) lets lines
    whose output still holds be copied instead of redone.
    """
    counts: Counter[str] = Counter()
    if kind == "json":
        with open_text(src) as handle:
            text = handle.read()
        _load_json(text, src)
        with open_text(dst, "w") as out:
            out.write(redact_json_text(text, matcher, counts))
        return counts
    if previous is not None and previous[1].aligned:
        try:
            return _redact_lines(src, dst, kind, matcher, record, previous)
        except _Misaligned:
            pass
    return _redact_lines(src, dst, kind, matcher, record, None)


def _redact_lines(src: Path, dst: Path, kind: str, matcher: Matcher, into: LineRecord | None,
                  previous: tuple[Path, LineRecord] | None) -> Counter[str]:
    record = LineRecord()
    counts: Counter[str] = Counter()
    found: Counter[str] = Counter()  # one line's replacements (cleared, not rebuilt: this runs per line)
    cached = _Literals(matcher)
    start = matcher.generation
    copying = previous is not None
    old = open_text(previous[0]) if previous is not None else None
    old_generations = previous[1].generations() if previous is not None else None
    last = -2  # the generation of the line before, as recorded
    try:
        with open_text(src) as handle, open_text(dst, "w") as out:
            for number, line in enumerate(handle, start=1):
                body = line.rstrip("\r\n")
                ending = line[len(body):]
                if old is not None:
                    old_line = old.readline()
                    if not old_line or old_line[len(old_line.rstrip("\r\n")):] != ending:
                        raise _Misaligned
                    if copying and next(old_generations) == start:  # type: ignore[arg-type]
                        out.write(old_line)
                        if last != start:
                            record.add(number, start, None)
                            last = start
                        continue
                generation = matcher.generation
                if found:
                    found.clear()
                line_found = found
                if kind == "jsonl":
                    if body.strip():
                        _check_jsonl_line(body, src, number)
                        body = cached.rewrite(body, found)
                elif body:
                    body, line_found = matcher.redact(body)
                if "\n" in body or "\r" in body:
                    record.aligned = False  # an unescaped view split the line: nothing lines up any more
                if matcher.generation != generation:
                    copying = False  # copied lines hold for an older table: this file will be redone
                    generation = -1
                if line_found:
                    counts.update(line_found)
                    record.add(number, generation, line_found)
                    last = generation
                elif last != generation:
                    record.add(number, generation, None)
                    last = generation
                out.write(body + ending)
            if old is not None and old.readline():
                raise _Misaligned
    finally:
        if old is not None:
            old.close()
    if previous is not None and copying:
        counts.update(previous[1].counts.get(start, Counter()))
        record.counts.setdefault(start, Counter()).update(previous[1].counts.get(start, Counter()))
    if into is not None:
        into.runs, into.counts, into.aligned = record.runs, record.counts, record.aligned
    return counts


def redact_name(relpath: str, matcher: Matcher, counts: Counter[str]) -> str:
    """A relative path with every component redacted (``logs/node7.log`` -> ``logs/host-1.log``)."""
    parts = []
    for part in relpath.split("/"):
        out, found = matcher.redact(part)
        counts.update(found)
        parts.append(out.replace("/", "-").replace("\\", "-") or "-")
    return "/".join(parts)
