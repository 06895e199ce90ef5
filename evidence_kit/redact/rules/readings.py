"""Reading rules: how published text is read before it is searched for known spellings.

The scan never rewrites, so a reading needs no map back to the text: each rule gives the text read
one more way, and every reading (and every reading of a reading, three deep) is searched. Letter case
is folded in all of them.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import unquote

from . import Example, Rule

__all__ = ["READINGS", "readings"]

_BACKSLASH = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|([/\\.\- _\"']))")
_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2})+")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# Characters that show nothing: Unicode's format characters (soft hyphen, zero-width spaces and joiners,
# direction marks), the combining grapheme joiner and the variation selectors.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"})
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")


def _unbackslash(text: str) -> str | None:
    if "\\" not in text:
        return None

    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2) or match.group(3)
        if code is None:
            return match.group(4)
        value = int(code, 16)
        return chr(value) if value < 0x110000 and not 0xD800 <= value <= 0xDFFF else match.group()

    return _BACKSLASH.sub(one, text)


def _unpercent(text: str) -> str | None:
    if "%" not in text and "+" not in text:
        return None
    return unquote(text.replace("+", " ")) if _PERCENT.search(text) or "+" in text else None


def _unentity(text: str) -> str | None:
    return html.unescape(text) if "&" in text and _ENTITY.search(text) else None


def _unansi(text: str) -> str | None:
    return _ANSI.sub("", text) if "\x1b" in text else None


def _unhidden(text: str) -> str | None:
    if text.isascii():
        return None
    shown = "".join(c for c in unicodedata.normalize("NFKD", _INVISIBLE.sub("", text)) if not unicodedata.combining(c))
    return unicodedata.normalize("NFKC", shown).translate(_DASHES)


_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_RUN_ON = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
# A run's capitals as `A`, its small letters as `a`, its other characters as `0` (every other character
# stays as it is, and is none of those three): capitals and letterless stretches are then found by plain
# substring searches, a pass over the text each instead of a regular expression's.
_RUN_SHAPE = str.maketrans(
    {c: "A" if c.isupper() else "a" if c.isalpha() else "0" for c in _RUN_CHARS},
)


def _run_at(text: str, index: int) -> tuple[int, re.Match[str]]:
    """The whole run holding ``text[index]``: where it starts, and its match (its ``=`` padding with it)."""
    start = index
    while start and text[start - 1] in _RUN_CHARS:
        start -= 1
    run = _RUN_ON.match(text, start)
    assert run is not None
    return start, run


def _letterless_runs(text: str, shape: str) -> Iterator[tuple[int, str]]:
    index = shape.find("0" * 16)
    while index >= 0:
        start, run = _run_at(text, index)
        part = shape[start : run.end()]
        if "a" not in part and "A" not in part and not run.group().isdigit():
            yield start, run.group()
        index = shape.find("0" * 16, run.end())


def _base64_runs(text: str, shape: str | None = None) -> list[tuple[int, str]]:
    """The runs :data:`_BASE64_RUN` finds that may be base64, with where they start: those holding both a
    capital and a small letter, and those without a letter that are not all digits. A run of small letters
    and digits alone (most of a journal) is never looked at: the search starts from each capital."""
    shape = text.translate(_RUN_SHAPE) if shape is None else shape
    runs = list(_letterless_runs(text, shape))
    found = shape.find("A")
    while found >= 0:
        start, run = _run_at(text, found)
        if len(run.group().rstrip("=")) >= 16 and not run.group().isupper():
            runs.append((start, run.group()))
        found = shape.find("A", run.end())
    return sorted(runs)


def _unbase64(text: str) -> str | None:
    if text.lower() == text:
        return None  # no capital at all (the cheapest test of a megabyte of a journal: no shape to make)
    shape = text.translate(_RUN_SHAPE)
    if "A" not in shape:
        return None  # base64 of text holds capitals (a run without any is a hash, a name, a word)
    decoded = []
    for _, run in _base64_runs(text, shape):
        body = run.rstrip("=").replace("-", "+").replace("_", "/")
        for start in range(3):  # the encoding of a value may start at any of three byte offsets
            chunk = body[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                decoded.append(base64.b64decode(chunk, validate=True).decode("utf-8", errors="replace"))
            except (binascii.Error, ValueError):
                continue
    return "\n".join(decoded) if decoded else None


def _separators(text: str) -> str | None:
    # Three replacements, each a fast search of the text, cost half of one translation through a table.
    return text.replace(" ", "-").replace("_", "-").replace("\t", "-")


READINGS: tuple[Rule, ...] = (
    Rule(
        "escapes",
        "reading",
        "JSON, TOML, YAML and Python escapes undone (`falcon\\u002dsecret`, `\\/data\\/hf`, `\\x2d`)",
        read=_unbackslash,
        examples=(Example("gpu\\u002dnode", gives=("gpu-node",)), Example("\\/srv\\/x", gives=("/srv/x",))),
    ),
    Rule(
        "url-encoding",
        "reading",
        "URL encoding undone (`acme-labs%2Ffalcon`, `Project+Bluebird`)",
        read=_unpercent,
        examples=(Example("acme-labs%2Ffalcon", gives=("acme-labs/falcon",)), Example("Project+Bluebird", gives=("Project Bluebird",))),
    ),
    Rule(
        "html-entities",
        "reading",
        "HTML entities undone (`falcon&#45;secret`, `&amp;`)",
        read=_unentity,
        examples=(Example("falcon&#45;secret", gives=("falcon-secret",)),),
    ),
    Rule(
        "terminal-colours",
        "reading",
        "ANSI colour and cursor codes removed (a `rich`-coloured log pasted into prose)",
        read=_unansi,
        examples=(Example("\x1b[1;32m10.20.30.40\x1b[0m", gives=("10.20.30.40",)),),
    ),
    Rule(
        "hidden-letters",
        "reading",
        "invisible characters removed, accents and combining marks dropped, full-width and compatibility letters and "
        "other dashes folded (`gpu\u200b-node`, `ｇｐｕ`, `g̲p̲u̲`, `gpu\u2011node`), in every text and every spelling alike "
        "(`kästrel` written with a combining mark, or without its accent, is `kästrel`)",
        read=_unhidden,
        always=True,
        examples=(Example("gpu\u200b-node", gives=("gpu-node",)), Example("ｇｐｕ\u2011node", gives=("gpu-node",))),
    ),
    Rule(
        "base64",
        "reading",
        "runs of base64 (16 characters or more, holding capitals and small letters) decoded from each of their first "
        "three bytes (a signed statement's payload, a `data:` URL, a basic-auth header)",
        read=_unbase64,
        examples=(Example(base64.b64encode(b"host gpu-node-17 here").decode(), gives=("gpu-node-17",)),),
    ),
    Rule(
        "separators",
        "reading",
        "blanks and underscores read as hyphens, in every text and every spelling alike (`falcon secret 70b` and "
        "`falcon_secret_70b` are `falcon-secret-70b`)",
        read=_separators,
        always=True,
        examples=(Example("falcon secret_70b", gives=("falcon-secret-70b",)),),
    ),
)

DEPTH = 3


def readings(text: str) -> list[str]:
    """``text`` and every reading of it that differs (readings of readings, :data:`DEPTH` deep)."""
    seen = [text]
    frontier = [text]
    for _ in range(DEPTH):
        following = []
        for item in frontier:
            for rule in READINGS:
                if rule.always:
                    continue  # applied in place by the engine
                assert rule.read is not None
                read = rule.read(item)
                if read is not None and read not in seen:
                    seen.append(read)
                    following.append(read)
        frontier = following
        if not frontier:
            break
    return seen
