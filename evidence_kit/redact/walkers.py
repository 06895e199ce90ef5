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
        if self.clean.issuperset(_LITERAL.findall(text)):
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
                    self.clean.add(raw)
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


def redact_file(src: Path, dst: Path, kind: str, matcher: Matcher) -> Counter[str]:
    """Write the redacted copy of ``src`` to ``dst``; return replacements per class."""
    counts: Counter[str] = Counter()
    if kind == "json":
        with open_text(src) as handle:
            text = handle.read()
        _load_json(text, src)
        with open_text(dst, "w") as out:
            out.write(redact_json_text(text, matcher, counts))
        return counts
    cached = _Literals(matcher)
    with open_text(src) as handle, open_text(dst, "w") as out:
        for number, line in enumerate(handle, start=1):
            body = line.rstrip("\r\n")
            ending = line[len(body):]
            if kind == "jsonl":
                if body.strip():
                    _check_jsonl_line(body, src, number)
                    body = cached.rewrite(body, counts)
            elif body:
                body, found = matcher.redact(body)
                counts.update(found)
            out.write(body + ending)
    return counts


def redact_name(relpath: str, matcher: Matcher, counts: Counter[str]) -> str:
    """A relative path with every component redacted (``logs/node7.log`` -> ``logs/host-1.log``)."""
    parts = []
    for part in relpath.split("/"):
        out, found = matcher.redact(part)
        counts.update(found)
        parts.append(out.replace("/", "-").replace("\\", "-") or "-")
    return "/".join(parts)
