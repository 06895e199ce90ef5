"""Stable, typed pseudonyms: ``model-1`` or ``model-kqxmztvw``, never the value.

With a key, a pseudonym is a keyed HMAC-SHA256 of (class, value): the same key
gives the same pseudonym in every file and in every bundle, and nobody without
the key can confirm a guess. Without a key, pseudonyms are per-class counters in
the order values were first met (deterministic for one run); the map is the only
link back.

Keyed pseudonyms are written in a 16-letter alphabet that holds no hex digit, so
a pseudonym never looks like a fingerprint to the detectors.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections import defaultdict
from collections.abc import Iterable

from ..errors import BadInput
from ..model.publication import IdentityKind

__all__ = [
    "CLASSES",
    "KINDS",
    "PSEUDONYM",
    "PSEUDONYM_ANYWHERE",
    "Pseudonyms",
    "is_pseudonym",
    "key_id",
    "letters",
]

# Every kind a pseudonym can have (the identity kinds of the contract), and the classes a policy or a private
# map written before them names (each hunted as the kind it stands for now); the prefix of a pseudonym is its kind.
KINDS: tuple[str, ...] = tuple(kind.value for kind in IdentityKind)
CLASSES: tuple[str, ...] = (*KINDS, "org", "registry", "uuid", "domain", "url", "hex", "token")
ALPHABET = "ghjkmnpqrstvwxyz"
MIN_KEY_BYTES = 16

PSEUDONYM = re.compile(r"(?<![A-Za-z0-9])(?:%s)-(?:[1-9][0-9]{0,6}|[%s]{8,16})(?![A-Za-z0-9])" % ("|".join(CLASSES), ALPHABET))

# A pseudonym's spelling wherever it stands, even run into other letters or digits (``0host-1``): what the
# scan of redacted output looks for where a detector hit may have borrowed a pseudonym's characters.
PSEUDONYM_ANYWHERE = re.compile(r"(?:%s)-(?:[1-9][0-9]{0,6}|[%s]{8,16})" % ("|".join(CLASSES), ALPHABET))


def letters(digest: bytes) -> str:
    """Spell bytes in :data:`ALPHABET`, two letters a byte."""
    return "".join(ALPHABET[b >> 4] + ALPHABET[b & 15] for b in digest)


_COUNTER = re.compile(r"(?:%s)-[1-9][0-9]{0,6}" % "|".join(CLASSES))
_KEYED = re.compile(r"(?:%s)-[%s]{8,16}" % ("|".join(CLASSES), ALPHABET))


def is_pseudonym(text: str, kind: str | None = None) -> bool:
    """Whether ``text`` is exactly one pseudonym (so it is already redacted); of that ``kind``
    (``counter`` or ``hmac-sha256``, as a receipt names it) when one is given."""
    if kind == "counter":
        return _COUNTER.fullmatch(text) is not None
    if kind == "hmac-sha256":
        return _KEYED.fullmatch(text) is not None
    return PSEUDONYM.fullmatch(text) is not None


def key_id(key: bytes | None) -> str:
    """A public name for the key: ``key-<letters>`` from an HMAC under it, or ``none``."""
    if key is None:
        return "none"
    return "key-" + letters(hmac.new(key, b"evidence-kit key id", hashlib.sha256).digest()[:6])


class Pseudonyms:
    """Hands out one pseudonym per (class, value), case-insensitively.

    ``key`` is the redaction key (at least 16 bytes) or ``None`` for counters.
    The private map (pseudonym -> original spellings) stays in this object; it
    is written only where the operator asks (``--map``).
    """

    def __init__(self, key: bytes | None = None):
        if key is not None and len(key) < MIN_KEY_BYTES:
            raise BadInput(f"the redaction key must hold at least {MIN_KEY_BYTES} bytes")
        self.key = key
        self.key_id = key_id(key)
        self._names: dict[tuple[str, str], str] = {}
        self._taken: set[str] = set()  # handed out, or reserved: spelled like a real value
        self._counters: dict[str, int] = defaultdict(int)
        self.originals: dict[str, set[str]] = defaultdict(set)

    def reserve(self, spellings: Iterable[str]) -> None:
        """Never hand out a pseudonym spelled like one of ``spellings`` (real values, case-folded).

        A real host may be called ``gpu-7`` or ``host-2``: its pseudonym must not be the
        name of another value, or the output would say two things at once (and the
        leak scan would rightly find the real value).
        """
        self._taken.update(spelling.casefold() for spelling in spellings)

    def name(self, cls: str, value: str) -> str:
        """The pseudonym of ``value`` as a ``cls``; the same for every spelling case."""
        if cls not in KINDS:
            cls = "value"
        ident = (cls, value.casefold())
        found = self._names.get(ident)
        if found is None:
            found = self._new(cls, ident[1])
            self._names[ident] = found
            self._taken.add(found)
        self.originals[found].add(value)
        return found

    def _new(self, cls: str, folded: str) -> str:
        if self.key is None:
            while True:
                self._counters[cls] += 1
                candidate = f"{cls}-{self._counters[cls]}"
                if candidate not in self._taken:
                    return candidate
        digest = hmac.new(self.key, f"{cls}\0{folded}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
        # Four bytes (eight letters) collide once in ~4e9 pairs; on a collision take more.
        for width in (4, 6, 8):
            candidate = f"{cls}-{letters(digest[:width])}"
            if candidate not in self._taken:
                return candidate
        raise BadInput("pseudonym collision even at 16 letters; use another key")  # pragma: no cover

    def mapping(self) -> list[dict[str, object]]:
        """The private map, sorted by pseudonym: never publish this."""
        return [{"pseudonym": name, "class": name.split("-", 1)[0], "values": sorted(self.originals[name])} for name in sorted(self.originals)]
