"""The matching engine of the known-value scan: known values, their spellings, one search.

It knows no rule by name: the spelling rules of :mod:`.rules` expand each known value (and each
value it teaches), the guards drop what is never private, and every reading of a text is searched
for what is left. It finds; it never rewrites (the typed writer publishes pseudonyms, never text it
edited), so a hit needs no position, only the kind it stands for.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import NamedTuple

from ..model.publication import IdentityKind
from .rules import rules_of
from .rules.guards import guard_of
from .rules.readings import readings
from .spellings import Spellings, compile_spellings

__all__ = ["Hunter", "KnownValue", "kind_of"]

_ANCHOR = 7  # the shortest shared prefix searched for in place of the spellings that share it
_PREFILTER_LIMIT = 256  # up to this many spellings, a substring test of each is faster than one pattern
_ALWAYS = [rule.read for rule in rules_of("reading") if rule.always and rule.read is not None]


def _in_place(text: str) -> str:
    """``text`` with every reading that is applied in place (to texts and spellings alike) applied."""
    for read in _ALWAYS:
        text = read(text) or text
    return text


# Classes of a private map or a policy written before the typed writer, by the kind they are now.
_LEGACY = {
    "org": "model",
    "registry": "host",
    "domain": "host",
    "url": "endpoint",
    "hex": "fingerprint",
    "uuid": "value",
    "token": "value",
}
_KINDS = frozenset(kind.value for kind in IdentityKind)


def kind_of(name: str) -> str:
    """The identity kind a class name stands for (a legacy class by its kind now; ``value`` for any other)."""
    name = _LEGACY.get(name, name)
    return name if name in _KINDS else "value"


class KnownValue(NamedTuple):
    """A private value and its kind (one of :class:`~evidence_kit.model.publication.IdentityKind`)."""

    kind: str
    value: str


def _spelled(kind: str, value: str) -> list[tuple[str, str]]:
    """``(spelling, kind)`` of one value: itself, and what every spelling rule of its kind gives."""
    spelled = [(value, kind)]
    for rule in rules_of("spelling"):
        if (not rule.kinds or kind in rule.kinds) and rule.spell is not None:
            spelled += [(text.strip(), taught.value) for text, taught in rule.spell(value) if text.strip()]
    return spelled


def spellings_of(values: Iterable[KnownValue], public: Iterable[str] = ()) -> dict[str, str]:
    """Every spelling (case-folded) of ``values`` and of the values they teach, with its kind; guarded words
    and ``public`` ones left out."""
    skip = {_in_place(word.casefold()) for word in public}
    found: dict[str, str] = {}
    todo = [(kind_of(v.kind), v.value.strip()) for v in values if v.value.strip()]
    seen: set[tuple[str, str]] = set()
    while todo:
        kind, value = todo.pop()
        if (kind, value) in seen or guard_of(value) is not None:
            continue  # a value that names nobody teaches nothing either
        seen.add((kind, value))
        spelled = _spelled(kind, value)
        todo += [(taught, text) for text, taught in spelled if taught != kind]  # another kind's: its own spellings too
        for form in (text for text, taught in spelled if taught == kind):
            folded = _in_place(form.casefold())
            if folded not in skip and folded not in found and _hunted(form, folded):
                found[folded] = kind
    return found


def _hunted(form: str, folded: str) -> bool:
    """Whether a spelling is hunted: no guard refuses it, as written or as it is searched (accents dropped)."""
    return guard_of(form) is None and guard_of(folded) is None


def _anchors(spellings: list[str]) -> tuple[str, ...]:
    """Texts at least one of which every spelling starts with: spellings that share a prefix of
    :data:`_ANCHOR` characters or more are tested by that prefix, one search of the text for several (a
    GPU's UUID with and without its dashes, two GPUs of one batch)."""
    anchors: list[str] = []
    for spelling in sorted(spellings):
        shared = os.path.commonprefix([anchors[-1], spelling]) if anchors else ""
        if len(shared) >= _ANCHOR:
            anchors[-1] = shared
        else:
            anchors.append(spelling)
    return tuple(anchors)


class Hunter:
    """Searches text, in every reading, for the spellings of known values."""

    def __init__(self, values: Iterable[KnownValue] = (), public: Iterable[str] = ()):
        self.table = spellings_of(values, public)
        self.pattern: Spellings | None = compile_spellings(self.table)
        # A text holding a spelling holds every spelling inside it: testing the shortest of them is enough.
        ordered = sorted(self.table, key=len) if len(self.table) <= 8 * _PREFILTER_LIMIT else []
        least = [s for i, s in enumerate(ordered) if not any(shorter in s for shorter in ordered[:i])]
        self.prefilter = _anchors(least) if ordered and len(least) <= _PREFILTER_LIMIT else None

    def __bool__(self) -> bool:
        return self.pattern is not None

    def find_plain(self, text: str) -> str | None:
        """The kind of the first known spelling in ``text`` as written (letter case folded), or ``None``."""
        if self.pattern is None or not text:
            return None
        folded = _in_place(text.casefold())
        if self.prefilter is not None and not any(spelling in folded for spelling in self.prefilter):
            return None  # no spelling occurs even without its boundaries
        match = self.pattern.search(folded)
        return self.table[match.group()] if match is not None else None

    def find(self, text: str) -> str | None:
        """The kind of the first known spelling in any reading of ``text``, or ``None``."""
        if self.pattern is None or not text:
            return None
        return next((kind for reading in readings(text) if (kind := self.find_plain(reading)) is not None), None)
