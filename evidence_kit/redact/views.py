"""Decoded views of a text, each mapped back to the characters it came from.

A private value can hide behind a spelling that a parser or a reader undoes:
``falcon\\u002dsecret`` (JSON, TOML, YAML or Python escapes), ``falcon%2Dsecret``
(URL escapes), ``falcon&#45;secret`` (HTML entities), ``Project\\ Bluebird`` (a
shell escape), ``gpu\u200b-node`` (a zero-width space or a soft hyphen),
``ｇｐｕ-node`` (full-width letters) or ``010.020.030.040`` (an address with padded
or hex octets). :func:`views` lists every decoded spelling of a
text that differs from it, each a :class:`View` whose characters know the span of
the original text they came from. The matcher finds values in every view and
replaces the original span, so the rest of the text keeps its bytes and its
escaping, and a value can never survive behind an escape.

Decoders are applied to the text and to each other's output (an escape inside an
escape), up to :data:`DEPTH` deep.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import NamedTuple

__all__ = ["View", "views", "normalise", "DEPTH"]

DEPTH = 3
_BACKSLASH = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|([^A-Za-z0-9\s]| ))")
_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2})+")
# A dotted IPv4 address with an octet zero-padded or in hex (010.020.030.040, 0x0a.0x14.0x1e.0x28).
_OCTET = r"(?:0[xX][0-9a-fA-F]{1,2}|[0-9]{1,3})"
# Not after a dot, nor before a dot and a digit (a fifth octet); digits glued on either side are no
# bar: 9010.020.030.040 holds 010.020.030.040, as "digits that go on" make a longer value of a known one.
_ADDRESS = re.compile(r"(?<!\.)" + _OCTET + r"(?:\." + _OCTET + r"){3}(?!\.[0-9])")
# A padded or hex octet: the first one (followed by its dot) or a later one (after a dot).
# Each a literal-led pattern (re scans those fast): "0" is matched first, then what stands before it.
_ADDRESS_HINTS = (re.compile(r"0(?<!\.0)[0-9xX][0-9a-fA-F]{0,2}\."), re.compile(r"\.0[0-9xX]"))
_ENTITY = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)")


class View(NamedTuple):
    """A decoded spelling; character ``i`` came from ``original[lo[i]:hi[i]]``."""

    text: str
    lo: tuple[int, ...]
    hi: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that the view's ``[start, end)`` came from."""
        return self.lo[start], self.hi[end - 1]


def _identity(text: str) -> View:
    return View(text, tuple(range(len(text))), tuple(range(1, len(text) + 1)))


def _substitute(view: View, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str]) -> View | None:
    """``view`` with each match of ``pattern`` replaced by ``decode(match)``; None when nothing changes."""
    pieces: list[str] = []
    lo: list[int] = []
    hi: list[int] = []
    last = 0
    text = view.text
    changed = False
    for match in pattern.finditer(text):
        decoded = decode(match)
        if decoded == match.group():
            continue
        changed = True
        pieces.append(text[last : match.start()])
        lo.extend(view.lo[last : match.start()])
        hi.extend(view.hi[last : match.start()])
        first, end = view.lo[match.start()], view.hi[match.end() - 1]
        pieces.append(decoded)
        lo.extend([first] * len(decoded))
        hi.extend([end] * len(decoded))
        last = match.end()
    if not changed:
        return None
    pieces.append(text[last:])
    lo.extend(view.lo[last:])
    hi.extend(view.hi[last:])
    return View("".join(pieces), tuple(lo), tuple(hi))


def _unbackslash(match: re.Match[str]) -> str:
    code = match.group(1) or match.group(2) or match.group(3)
    if code is None:
        return match.group(4)  # \/ \- \. \" \  : the character itself
    value = int(code, 16)
    return chr(value) if value < 0x110000 else match.group()


def _unpercent(match: re.Match[str]) -> str:
    raw = bytes(int(match.group()[i + 1 : i + 3], 16) for i in range(0, len(match.group()), 3))
    return raw.decode("utf-8", errors="replace")


def _unpad(match: re.Match[str]) -> str:
    """An address with padded or hex octets, in the dotted decimal form (unchanged if an octet is out of range)."""
    octets = [int(part, 16) if part[:2].lower() == "0x" else int(part) for part in match.group().split(".")]
    return ".".join(map(str, octets)) if all(octet < 256 for octet in octets) else match.group()


def _unentity(match: re.Match[str]) -> str:
    return html.unescape(match.group())


# Characters that show nothing: every format character of Unicode 14 (category Cf: the soft
# hyphen, zero-width spaces and joiners, direction marks, tags), plus the invisible marks NFKC
# keeps (the combining grapheme joiner, variation selectors) and the Hangul fillers.
_INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0xAD, 0xAD),
    (0x34F, 0x34F),
    (0x600, 0x605),
    (0x61C, 0x61C),
    (0x6DD, 0x6DD),
    (0x70F, 0x70F),
    (0x890, 0x891),
    (0x8E2, 0x8E2),
    (0x115F, 0x1160),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
    (0xE0100, 0xE01EF),
)


@lru_cache(maxsize=1)
def _format_characters() -> re.Pattern[str]:
    """Characters that show nothing (see :data:`_INVISIBLE_RANGES`)."""
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _INVISIBLE_RANGES) + "]")


def _clusters(text: str) -> Iterator[tuple[str, int, int]]:
    """``(characters, first, last)``: each letter with the combining marks that follow it
    (invisible characters dropped), where ``first`` and ``last`` index ``text``."""
    fmt = _format_characters()
    cluster: list[str] = []
    first = last = -1
    for index, char in enumerate(text):
        if fmt.match(char):
            continue
        if cluster and unicodedata.combining(char):
            cluster.append(char)
            last = index
            continue
        if cluster:
            yield "".join(cluster), first, last
        cluster, first, last = [char], index, index
    if cluster:
        yield "".join(cluster), first, last


def _rebuilt(view: View, fold: Callable[[str], str]) -> View:
    """``view`` with each letter-and-marks cluster replaced by ``fold(cluster)``, mapped to its span."""
    pieces: list[str] = []
    lo: list[int] = []
    hi: list[int] = []
    for cluster, first, last in _clusters(view.text):
        folded = fold(cluster)
        pieces.append(folded)
        lo.extend([view.lo[first]] * len(folded))
        hi.extend([view.hi[last]] * len(folded))
    return View("".join(pieces), tuple(lo), tuple(hi))


# Dashes that are not the hyphen-minus, as a word processor or a font substitution writes them.
_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"})


_DASH_SET = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d")


def _compatible(cluster: str) -> str:
    return unicodedata.normalize("NFKC", cluster).translate(_DASHES)


def _unmarked(cluster: str) -> str:
    return unicodedata.normalize("NFKC", "".join(c for c in unicodedata.normalize("NFKD", cluster) if not unicodedata.combining(c))).translate(
        _DASHES
    )


def normalise(text: str) -> str:
    """``text`` as :func:`views` reads it for hidden letters: invisible characters removed, each letter
    with its combining marks composed (NFC), compatibility letters folded (NFKC)."""
    return "".join(_compatible(cluster) for cluster, _, _ in _clusters(text))


def _normalised(view: View) -> View | None:
    text = view.text
    if text.isascii() or (
        unicodedata.is_normalized("NFKC", text) and not _format_characters().search(text) and not any(c in _DASH_SET for c in text)
    ):
        return None
    return _rebuilt(view, _compatible)


def _without_marks(view: View) -> View | None:
    """Letters without their combining marks: an underlined or struck-through name (U+0332, U+0336)
    stays legible, so it is read without them too."""
    if _has_marks(view.text):
        return _rebuilt(view, _unmarked)
    return None


def _has_marks(text: str) -> bool:
    """Whether ``text`` holds a combining mark."""
    return not text.isascii() and any(unicodedata.combining(c) for c in text)


_GIT_HASH = re.compile(r"(?<=[-+.])g(?=[0-9a-fA-F]{7,40}(?![0-9A-Za-z]))")


def _git_describe(view: View) -> View | None:
    """``v0.11.1-3-g3f9c2a7`` and ``0.11.1.dev3+g3f9c2a7``: the ``g`` git glues before a short revision, read as a space."""
    return _substitute(view, _GIT_HASH, lambda match: " ")


def _decoders(text: str) -> list[Callable[[View], View | None]]:
    """The decoders worth trying on ``text`` (each needs its marker: a cheap test first)."""
    out: list[Callable[[View], View | None]] = []
    if "\\" in text and _BACKSLASH.search(text):
        out.append(lambda v: _substitute(v, _BACKSLASH, _unbackslash))
    if "%" in text and _PERCENT.search(text):  # "45.3% used" has nothing to decode
        out.append(lambda v: _substitute(v, _PERCENT, _unpercent))
    if "&" in text and _ENTITY.search(text):
        out.append(lambda v: _substitute(v, _ENTITY, _unentity))
    if text.count(".") >= 3 and any(hint.search(text) for hint in _ADDRESS_HINTS):
        out.append(lambda v: _substitute(v, _ADDRESS, _unpad))
    if not text.isascii():
        out.append(_normalised)
        out.append(_without_marks)
    if ("-g" in text or "+g" in text or ".g" in text) and _GIT_HASH.search(text):
        out.append(_git_describe)
    return out


def views(text: str) -> list[View]:
    """Every decoded spelling of ``text`` that differs from it (breadth first, up to :data:`DEPTH` decodings)."""
    if not _decoders(text):
        return []
    seen = {text}
    found: list[View] = []
    frontier = [_identity(text)]
    for _ in range(DEPTH):
        following: list[View] = []
        for view in frontier:
            for decode in _decoders(view.text):
                decoded = decode(view)
                if decoded is not None and decoded.text not in seen:
                    seen.add(decoded.text)
                    found.append(decoded)
                    following.append(decoded)
        frontier = following
        if not frontier:
            break
    return found
