"""Walk one file's structure: the texts it holds, and its redacted copy.

Two readers of the same structure, so that discovery sees exactly the texts the
rewrite replaces in: :func:`file_texts` lists them (and checks the file), and
:func:`redact_file` writes the copy.

JSON is parsed (to refuse malformed input with its line) and then rewritten at
the level of its string literals: every key and every string value goes through
the matcher, and everything between them (numbers, ``true``/``false``/``null``,
punctuation, white space) is copied byte for byte — except an identifying number
under ``private`` (a serial), which becomes its pseudonym. That is why every
timing and count stays exactly equal. JSONL is streamed line by line; text line
by line, keeping its line endings; TOML first has the escapes of its strings
decoded (``\\U0000002D``, line continuations), so a value a TOML parser reveals is
a value the matcher sees; file and folder names component by component.

Bytes that are not UTF-8 are bad input (file and line), never a traceback.
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from pydantic_core import from_json

from ..errors import BadInput
from .detectors import JWK_MEMBERS, LABELS
from .harvest import NotText, harvest_text
from .keys import distinct_keys, may_collide
from .ledger import Ledger
from .matcher import Matcher
from .pseudonyms import Pseudonyms
from .variants import KnownValue, integral_digits

__all__ = [
    "BINARY_SUFFIXES",
    "file_kind",
    "file_texts",
    "literals",
    "redact_file",
    "redact_name",
    "redact_json_text",
    "open_text",
    "plain_literals",
    "clean_key",
    "check_name",
    "toml_text",
    "labelled_pairs",
    "labels_absent",
]

JSON_SUFFIXES = frozenset({".json", ".dsse", ".har", ".ipynb"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
BINARY_SUFFIXES = frozenset(
    {
        ".gz",
        ".tgz",
        ".zip",
        ".xz",
        ".zst",
        ".zstd",
        ".bz2",
        ".lz4",
        ".7z",
        ".tar",
        ".rar",
        ".safetensors",
        ".bin",
        ".pt",
        ".pth",
        ".ckpt",
        ".npy",
        ".npz",
        ".parquet",
        ".arrow",
        ".pkl",
        ".pickle",
        ".onnx",
        ".gguf",
        ".so",
        ".o",
        ".a",
        ".exe",
        ".dll",
        ".sqlite",
        ".db",
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".webp",
        ".ico",
        ".pdf",
        ".woff",
        ".woff2",
        ".ttf",
        ".nsys-rep",
        ".qdrep",
        ".sqlite3",
        ".core",
    }
)
_MAGIC = (b"\x1f\x8b", b"PK\x03\x04", b"\x28\xb5\x2f\xfd", b"\xfd7zXZ", b"BZh", b"\x89PNG", b"\x7fELF", b"%PDF")
_LITERAL = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of a byte that is not UTF-8
# A JSON text's tokens, for finding the numbers under "private" (strings first: they hold anything).
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|[{}\[\]:,]|true|false|null|\s+', re.S)


def file_kind(path: Path) -> str:
    """``json``, ``jsonl``, ``toml``, ``text`` or ``binary`` (by suffix, then by the first bytes)."""
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
    if suffix == ".toml":
        return "toml"
    return "text"


def open_text(path: Path, mode: str = "r") -> IO[str]:
    """Open text so that any byte round-trips and line endings stay as written."""
    return path.open(mode, encoding="utf-8", errors="surrogateescape", newline="")


def _utf8(text: str, src: Path, line: int | None) -> None:
    """Refuse text that held bytes that are not UTF-8 (surrogateescape shows them as surrogates)."""
    if not text.isascii():
        bad = _NOT_UTF8.search(text)
        if bad is not None:
            if line is None:
                line = text.count("\n", 0, bad.start()) + 1
            raise BadInput(f"not UTF-8 text (byte 0x{ord(bad.group()) - 0xDC00:02x}); the redactor reads text only", src, line)


def check_name(rel: str, root: Path) -> None:
    """Refuse a file name holding bytes that are not UTF-8 (the name is shown escaped)."""
    if _NOT_UTF8.search(rel):
        raise BadInput("a file name that is not UTF-8; rename it", root / rel.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace"))


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
    return parts[1 : quotes - quotes % 2 : 2]  # an odd last quote opens nothing


def clean_key(raw: str) -> str:
    """How a literal found clean is remembered: its contents when unescaped, else as written."""
    return raw if "\\" in raw else raw[1:-1]


def _decoded(raw: str) -> str:
    return json.loads(raw) if "\\" in raw else raw[1:-1]


def literals(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, decoded)`` of every string literal (keys too) in valid JSON text."""
    for match in _LITERAL.finditer(text):
        yield match.start(), match.end(), _decoded(match.group())


# After a key: the colon and the value, a string or a number (a serial written as a JSON number).
_VALUE_AFTER_KEY = re.compile(r'\s*:\s*("(?:[^"\\\n]|\\.)*"|-?[0-9][0-9.eE+-]*)')


def _label_forms() -> tuple[frozenset[str], dict[str, str]]:
    """Every spelling of a label as a JSON key (``hostname``, ``Hostname``, ``HOSTNAME``, ``HostName``,
    ``serial_number``, ``serialNumber``, ``Serial Number``, …) and each one's label, by its letters."""
    forms: set[str] = set()
    by_letters: dict[str, str] = {}
    for label in LABELS:
        words = [w for w in re.split(r"[ _-]", label) if w]
        by_letters["".join(words)] = label
        for sep in {" ", "_", "-", ""} if len(words) > 1 else {""}:
            for spelled in (
                sep.join(words),
                sep.join(w.capitalize() for w in words),
                sep.join(words).upper(),
                words[0] + sep.join(w.capitalize() for w in words[1:]),
            ):
                forms.add(spelled)
        forms.update({label, label.capitalize(), label.upper(), label.title()})
    for known in (
        "HostName",
        "hostName",
        "NodeName",
        "nodeName",
        "MachineId",
        "machineID",
        "ContainerId",
        "ContainerID",
        "ContainerName",
        "ApiKey",
        "APIKey",
        "AccessToken",
        "HfToken",
        "ImageName",
    ):
        forms.add(known)
    return frozenset(forms), by_letters


_LABEL_FORMS, _LABEL_BY_LETTERS = _label_forms()


def labels_absent(literals: Iterable[str]) -> bool:
    """Whether none of ``literals`` is a label spelled as a JSON key, nor are ``name`` and ``value`` both there (an
    object naming a variable: see :func:`labelled_pairs`): the one test most lines need."""
    if not isinstance(literals, (list, tuple, set, frozenset)):
        literals = list(literals)
    return _LABEL_FORMS.isdisjoint(literals) and JWK_MEMBERS.isdisjoint(literals) and not ("name" in literals and "value" in literals)


def _label_of(key: str) -> str | None:
    """The private label a JSON key spells (any usual casing), or the key itself when it is a JWK's private member
    (find_labelled judges its value's shape); None for any other key."""
    label = _LABEL_BY_LETTERS.get(re.sub(r"[ _-]", "", key.lower()))
    return key if label is None and key in JWK_MEMBERS else label


def labelled_pairs(text: str, literals: list[str] | None = None) -> list[str]:
    """``label: value`` for each JSON string value under a private label (``"Hostname": "box7"``,
    ``"serialNumber": …``): a JSON file shows the label and its value as two strings, never one text; and
    ``NAME=value`` for each object naming a variable (``{"name": "VLLM_API_KEY", "value": "…"}``).

    ``literals`` are the text's decoded string literals when already at hand: most lines hold
    no label among them, and that is one set test.
    """
    if literals is None:
        literals = list(_literal_texts(text))
    out = _named_values(text) if "name" in literals and "value" in literals else []
    if _LABEL_FORMS.isdisjoint(literals) and JWK_MEMBERS.isdisjoint(literals):
        return out
    for match in _LITERAL.finditer(text):  # literal by literal: a key is a literal followed by a colon
        label = _label_of(match.group()[1:-1])
        if label is None and "\\" in match.group():
            try:
                label = _label_of(_decoded(match.group()))  # "\u0064" is the key "d" to every parser
            except ValueError:
                continue
        value = _VALUE_AFTER_KEY.match(text, match.end()) if label is not None else None
        if value is not None:
            raw = value.group(1)
            try:
                out.append(f"{label}: {_decoded(raw) if raw.startswith(chr(34)) else raw}")
            except ValueError:
                continue
    return out


# A variable as Kubernetes (a pod's "env"), Docker's API and HAR (headers, form fields) write one: its name and its
# value as two members of an object, {"name": "VLLM_API_KEY", "value": "…"}.
_NAMED_VALUE = re.compile(r'"name"\s*:\s*("(?:[^"\\\n]|\\.)*")\s*,\s*"value"\s*:\s*("(?:[^"\\\n]|\\.)*")')


def _named_values(text: str) -> list[str]:
    """``NAME=value`` of each such object: find_labelled judges the name as a label (``*_API_KEY=…``)."""
    out = []
    for match in _NAMED_VALUE.finditer(text):
        try:
            out.append(f"{_decoded(match.group(1))}={_decoded(match.group(2))}")
        except ValueError:
            continue
    return out


def _literal_texts(text: str) -> Iterator[str]:
    plain = plain_literals(text)
    if plain is not None:
        yield from plain
    else:
        yield from (_decoded(raw) for raw in _LITERAL.findall(text))


def _load_json(text: str, src: Path, line: int | None = None) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON ({err.msg})", src, line if line is not None else err.lineno) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", src, line) from None
    except ValueError:  # not a JSONDecodeError: an integer of more digits than Python converts
        raise BadInput("not valid JSON (a number of too many digits)", src, line) from None


_JITER_POSITION = re.compile(r" at line [0-9]+ column [0-9]+$")


def _check_jsonl_line(text: str, src: Path, line: int) -> None:
    """Refuse a malformed JSONL line. pydantic-core's parser (jiter) accepts what ``json.loads``
    accepts, NaN included, at about a third of the cost."""
    try:
        from_json(text)
    except ValueError as err:
        raise BadInput(f"not valid JSON ({_JITER_POSITION.sub('', str(err))})", src, line) from None


# -- TOML: the escapes a parser undoes, undone in the text -------------------------------------

_TOML_STRING = re.compile(r'"""(?:\\.|[^\\])*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*', re.S)
_TOML_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([ \t]*\r?\n[ \t\r\n]*)|(.))", re.S)


def _toml_unescape(token: str) -> str:
    multiline = token.startswith('"""')

    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        if code is not None:
            value = int(code, 16)
            char = chr(value) if value < 0x110000 and not 0xD800 <= value <= 0xDFFF else ""
            return char if char.isprintable() and char not in '"\\' else match.group()
        if match.group(3) is not None and multiline:
            return ""  # a line-ending backslash: the parser joins the lines
        return match.group()

    return _TOML_ESCAPE.sub(one, token)


def toml_text(src: Path, text: str) -> str:
    """TOML text with the escapes in its strings decoded where that changes no value.

    A value written ``gpu\\U0000002Dnode-17`` or split by a line continuation is what the
    TOML parser (and so the published page) shows as ``gpu-node-17``: the redactor must
    see it so. The rewritten text parses to exactly the same document, or it is not used.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        line = re.search(r"line ([0-9]+)", str(err))
        raise BadInput(f"not valid TOML ({str(err).split(' (at')[0]})", src, int(line.group(1)) if line else None) from None
    except RecursionError:
        raise BadInput("TOML nested too deeply", src) from None
    plain = _TOML_STRING.sub(lambda m: _toml_unescape(m.group()) if m.group().startswith('"') else m.group(), text)
    try:
        return plain if plain != text and tomllib.loads(plain) == document else text
    except (tomllib.TOMLDecodeError, RecursionError):
        return text


# -- what a file holds ----------------------------------------------------------------------


def _lines(src: Path, kind: str) -> Iterator[tuple[int, str, str]]:
    """``(number, body, ending)`` of every line (TOML with its escapes decoded)."""
    if kind == "toml":
        with open_text(src) as handle:
            text = handle.read()
        _utf8(text, src, None)
        lines: Iterator[str] = iter(toml_text(src, text).splitlines(keepends=True))
    else:
        lines = open_text(src)
    try:
        for number, line in enumerate(lines, start=1):
            body = line.rstrip("\r\n")
            yield number, body, line[len(body) :]
    finally:
        if hasattr(lines, "close"):
            lines.close()


def file_texts(
    src: Path, kind: str, *, check: bool = False, harvested: list[KnownValue] | None = None, ledger: Ledger | None = None
) -> Iterator[list[str]]:
    """Every text of ``src`` the rewrite hands to the matcher, in order, a line's worth at a time.

    With ``check``, the file is also checked (bytes that are not UTF-8, malformed JSON:
    :class:`~evidence_kit.errors.BadInput` with file and line), the ``private``
    object of every JSONL line after the first is harvested into ``harvested``, and
    a JSONL file's batches are noted in ``ledger`` (see :mod:`.ledger`).
    """
    if kind == "json":
        with open_text(src) as handle:
            text = handle.read()
        if check:
            _utf8(text, src, None)
            _load_json(text, src)
        texts = list(_literal_texts(text))
        yield texts + labelled_pairs(text, texts)
        return
    if kind == "jsonl":
        yield from _jsonl_texts(src, check, harvested, ledger if check else None)
        return
    for number, body, _ in _lines(src, kind):
        if check:
            _utf8(body, src, number)
        if body:
            yield [body]


_BATCH = 1 << 20  # characters of JSONL read at a time: lines are checked one by one, literals found per batch


def _jsonl_texts(src: Path, check: bool, harvested: list[KnownValue] | None, ledger: Ledger | None) -> Iterator[list[str]]:
    number = 0
    with open_text(src) as handle:
        while lines := handle.readlines(_BATCH):
            batch = "".join(lines)
            private = check and _may_hold_private(batch)
            if check:
                for offset, line in enumerate(lines, start=number + 1):
                    if not line.isascii():
                        _utf8(line, src, offset)
                    try:
                        from_json(line)
                    except ValueError:
                        if line.strip():
                            _check_jsonl_line(line, src, offset)  # raises, naming file and line
                    if private and harvested is not None and offset > 1 and _may_hold_private(line):
                        try:
                            harvested += harvest_text(line)
                        except NotText as err:
                            raise BadInput(str(err), src, offset) from None
                        except (ValueError, RecursionError):  # an integer too long for Python, or nesting
                            raise BadInput("not valid JSON (a number of too many digits, or nested too deeply)", src, offset) from None
            number += len(lines)
            if "\\" not in batch:
                # Checked JSON lines without a backslash: each line's literals lie between every other
                # quote, and each line holds an even number of quotes, so the batch splits as its lines do.
                texts = list(dict.fromkeys(batch.split('"')[1::2]))
                if ledger is not None:
                    ledger.note(batch, len(lines), None if private else texts)
                yield texts
                if not labels_absent(texts):
                    yield [pair for line in lines for pair in labelled_pairs(line)]
                continue
            if ledger is not None:
                ledger.note(batch, len(lines), None)
            for line in lines:
                if line.strip():
                    texts = line.split('"')[1::2] if "\\" not in line else [_decoded(raw) for raw in _LITERAL.findall(line)]
                    yield texts
                    pairs = labelled_pairs(line, texts)
                    if pairs:
                        yield pairs


# -- the rewrite ------------------------------------------------------------------------------


def _encode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)  # a lone surrogate from a \\uD800 escape: keep it escaped
    return json.dumps(value, ensure_ascii=False)


class _Literals:
    """Per-literal cache in front of the matcher: most literals of a journal repeat."""

    def __init__(self, matcher: Matcher, pseudonyms: Pseudonyms):
        self.matcher = matcher
        self.pseudonyms = pseudonyms
        self.cache: dict[str, tuple[str | None, tuple[tuple[str, int], ...]]] = {}
        self.clean: set[str] = set()

    def _literal(self, raw: str) -> tuple[str | None, tuple[tuple[str, int], ...]]:
        """The rewritten literal ``raw`` (quoted; None when unchanged) and its replacements per class."""
        known = self.cache.get(raw)
        if known is None:
            decoded = _decoded(raw)
            out, found = self.matcher.redact(decoded, self.pseudonyms)
            known = (None if out == decoded else _encode(out), tuple(found.items()))
            if known[0] is None and not found:
                self.clean.add(clean_key(raw))
            self.cache[raw] = known
        return known

    def _bounded(self) -> None:
        if len(self.cache) + len(self.clean) > 200_000:
            self.cache.clear()
            self.clean.clear()

    def rewrite(self, text: str, counts: Counter[str]) -> str:
        self._bounded()
        plain = plain_literals(text)
        if plain is not None and self.clean.issuperset(plain):
            return self._numbers(text, counts)  # the common journal line: every string known to be clean
        pieces: list[str] = []
        last = 0
        changed: dict[str, str] = {}
        unchanged: set[str] = set()
        for match in _LITERAL.finditer(text):
            replaced, found = self._literal(match.group())
            if replaced is not None:
                pieces += [text[last : match.start()], replaced]
                last = match.end()
                counts.update(dict(found))
                changed[_decoded(match.group())] = _decoded(replaced)
            else:
                unchanged.add(_decoded(match.group()))
        if not pieces:
            return self._numbers(text, counts)
        out = "".join(pieces) + text[last:]
        if may_collide(changed, unchanged):
            out = distinct_keys(text, out)
        return self._numbers(out, counts)

    def unchanged(self, contents: frozenset[str]) -> bool:
        """Whether no literal of ``contents`` (contents without escapes) changes."""
        self._bounded()
        return all(c in self.clean or self._literal('"' + c + '"')[0] is None for c in contents)

    def rewrite_plain(self, text: str, counts: Counter[str]) -> str:
        """:meth:`rewrite` of every line of ``text``, checked JSON lines that hold no backslash and no
        ``private`` key: their literals lie between every other quote, so one split finds them all."""
        self._bounded()
        pieces = text.split('"')
        contents = pieces[1::2]
        if self.clean.issuperset(contents):
            return text
        new: dict[str, str] = {}
        for content, times in Counter(contents).items():
            if content in self.clean:
                continue
            replaced, found = self._literal('"' + content + '"')
            if replaced is not None:
                new[content] = replaced[1:-1]
                for cls, count in found:
                    counts[cls] += count * times
        if not new:
            return text
        pieces[1::2] = [new.get(content, content) for content in contents]
        out = '"'.join(pieces)
        return distinct_keys(text, out) if may_collide(new, set(contents) - new.keys()) else out

    def _numbers(self, text: str, counts: Counter[str]) -> str:
        """An identifying number under ``private`` (a serial harvested as a value) becomes its pseudonym."""
        if not _may_hold_private(text) or not self.matcher.has_numbers():
            return text
        pieces: list[str] = []
        last = 0
        for start, end in _private_numbers(text):
            known = self.matcher.table.get(integral_digits(json.loads(text[start:end])) or "")
            if known is not None:
                counts[known.cls] += 1
                pieces += [text[last:start], json.dumps(self.pseudonyms.name(known.cls, known.entity))]
                last = end
        return "".join(pieces) + text[last:] if pieces else text


# The key "private" with any of its letters written as a JSON \u escape (hex digits in any case).
_ESCAPED_PRIVATE = re.compile('"' + "".join(f"(?:{c}|\\\\u00(?i:{ord(c):02x}))" for c in "private") + '"')


def _may_hold_private(text: str) -> bool:
    """Whether a JSON text may have a ``private`` key: written so, or spelled with ``\\u``
    escapes (``"priv\\u0061te"`` is the same key to every parser; ``\\u`` is the only escape
    that can spell a letter)."""
    return '"private"' in text or ("\\u" in text and _ESCAPED_PRIVATE.search(text) is not None)


def _private_numbers(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the numbers inside every ``private`` object of a JSON document's top level
    (a key written twice, or spelled with escapes, included)."""
    depth = 0
    key: str | None = None
    private_depth: int | None = None
    expect_key = False
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in "{[":
            if depth == 1 and key == "private" and private_depth is None:
                private_depth = depth + 1
            depth += 1
            expect_key = first == "{"
        elif first in "}]":
            depth -= 1
            if private_depth is not None and depth < private_depth:
                private_depth = None
        elif first == ",":
            expect_key = True  # in an object, a key follows (in an array, the flag is never used)
        elif first == '"':
            if expect_key and depth == 1:
                key = json.loads(token)
            expect_key = False
        elif first == ":" or first.isspace():
            continue
        elif first in "-0123456789":
            if private_depth is not None or (depth == 1 and key == "private"):
                yield match.start(), match.end()


def redact_json_text(text: str, matcher: Matcher, pseudonyms: Pseudonyms, counts: Counter[str]) -> str:
    """Redact the string literals of one JSON text; everything else is kept byte for byte."""
    return _Literals(matcher, pseudonyms).rewrite(text, counts)


def redact_file(src: Path, dst: Path, kind: str, matcher: Matcher, pseudonyms: Pseudonyms, ledger: Ledger | None = None) -> Counter[str]:
    """Write the redacted copy of ``src`` to ``dst``; return replacements per class.

    ``src`` must have been checked by :func:`file_texts` (``check=True``) first; the
    ``ledger`` it filled for a JSONL file, if given, spares work on unchanged batches.
    """
    counts: Counter[str] = Counter()
    if kind == "json":
        with open_text(src) as handle:
            text = handle.read()
        with open_text(dst, "w") as out:
            out.write(redact_json_text(text, matcher, pseudonyms, counts))
        return counts
    if kind == "jsonl":
        _redact_jsonl(src, dst, _Literals(matcher, pseudonyms), counts, ledger)
        return counts
    with open_text(dst, "w") as out:
        for _, body, ending in _lines(src, kind):
            if body:
                body, found = matcher.redact(body, pseudonyms)
                counts.update(found)
            out.write(body + ending)
    return counts


def _redact_jsonl(src: Path, dst: Path, cached: _Literals, counts: Counter[str], ledger: Ledger | None) -> None:
    """The hot loop: checked JSONL lines without a backslash and without ``private`` have their
    literals between every other quote, so a batch of them is rewritten with one split (and
    copied as it is when every literal is clean); a line of another batch, likewise. A batch
    whose literals discovery noted, at the line it noted, is copied on those notes when they are
    all clean (the ledger records it: the scan checks the copy is the batch discovery read)."""
    notes = ledger if ledger is not None else Ledger()  # without one, nothing is noted
    aligned = True  # every batch so far, this one included, held the lines discovery noted for it
    with open_text(src) as handle, open_text(dst, "w") as out:
        for index in itertools.count():
            lines = handle.readlines(_BATCH)
            if not lines:
                break
            batch = "".join(lines)
            aligned = aligned and notes.holds(index, len(lines))
            noted = notes.batches[index].contents if aligned else None
            if "\\" not in batch and not _may_hold_private(batch):
                if noted is not None and cached.unchanged(noted):
                    notes.copied.add(index)
                    out.write(batch)
                else:
                    out.write(cached.rewrite_plain(batch, counts))
                continue
            for line in lines:
                if "\\" not in line and not _may_hold_private(line):
                    out.write(cached.rewrite_plain(line, counts))
                    continue
                body = line.rstrip("\r\n")
                out.write((cached.rewrite(body, counts) if body.strip() else body) + line[len(body) :])


def redact_name(relpath: str, matcher: Matcher, pseudonyms: Pseudonyms, counts: Counter[str]) -> str:
    """A relative path with every component redacted (``logs/node7.log`` -> ``logs/host-1.log``)."""
    parts = []
    for part in relpath.split("/"):
        out, found = matcher.redact(part, pseudonyms)
        counts.update(found)
        parts.append(out.replace("/", "-").replace("\\", "-") or "-")
    return "/".join(parts)
