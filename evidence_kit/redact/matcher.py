"""One matcher for the redactor and the scanner: known values first, then detectors.

The redactor and the scanner must agree exactly on what is private, so both go
through :class:`Matcher`. It holds a fixed table of known spellings (every variant
of every known value, case-folded) and the compiled detectors; it finds things
and never learns: what a text teaches (a host a detector found, a known value
that runs on into a longer one) is reported in :attr:`Examined.learnt`, and
:func:`~.discover.discover` alone decides what becomes known.

A text is examined as written *and* in each of its decoded views (escapes, URL
encoding, HTML entities, hidden and full-width letters; see :mod:`.views`), and
every hit is mapped back to the span of the text it came from, so a replacement
keeps the rest of the text byte for byte and a value cannot hide behind an escape.

Results are cached per distinct string: journals repeat the same keys and values
on every line, which is what makes redaction fast.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from .detectors import compile_detectors, find, find_labelled
from .pseudonyms import PSEUDONYM_ANYWHERE, Pseudonyms, is_pseudonym
from .spellings import DIGIT_RUN, compile_spellings
from .variants import RUN_ID, KnownValue, Variant, canonical, split_url, variants
from .views import View, views

__all__ = ["Matcher", "Hit", "Examined", "lowered"]

CACHE_LIMIT = 1_000_000
_DIGITS = frozenset("0123456789")
_HEX_DIGITS = frozenset("0123456789abcdef")
_BASE64 = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+/=-_")  # lowercased: the text is matched folded
# Detector classes whose hits teach a value that may appear elsewhere without the shape the
# detector needs (a host's short name, a labelled serial, a GPU UUID without its prefix).
# Hex fingerprints, UUIDs and tokens are found by shape wherever they are.
_DISCOVER = frozenset({"host", "email", "url", "gpu", "ip", "mac", "serial", "container", "image", "path", "user", "value"})
# What a known value is masked with before the detectors look: pseudonym-shaped, so a detector
# sees what it will see in the output (and a hit that is only the mask is no hit).
_MASK = "{}-ghjkmnpq"
_MASKED = re.compile(r"[a-z]+-ghjkmnpq")


class Hit(NamedTuple):
    """One private thing in a text: where, which class, found how, and the value it stands for."""

    start: int
    end: int
    cls: str
    source: str  # "known" or "detector"
    entity: str = ""


class Examined(NamedTuple):
    """What a text holds: its hits (merged, in the text's own positions) and what it teaches."""

    hits: tuple[Hit, ...]
    learnt: frozenset[KnownValue]


def _hex_word(lower: str, start: int) -> bool:
    """Whether the letters and digits from ``start`` on, up to the next other character, are all hex digits."""
    end = start
    while end < len(lower) and lower[end].isalnum():
        if lower[end] not in _HEX_DIGITS:
            return False
        end += 1
    return True


def lowered(text: str) -> str:
    """``text`` lowercased letter for letter (positions kept), as the known spellings are matched."""
    folded = text.lower()
    if len(folded) != len(text):  # rare letters whose lowercase is longer: match char by char
        folded = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return folded


def _masked(text: str, spans: list[tuple[int, int, str]]) -> View:
    """``text`` with each ``(start, end, class)`` span replaced by a pseudonym-shaped mask."""
    pieces: list[str] = []
    lo: list[int] = []
    hi: list[int] = []
    last = 0
    for start, end, cls in spans:
        pieces.append(text[last:start])
        lo.extend(range(last, start))
        hi.extend(range(last + 1, start + 1))
        mask = _MASK.format(cls)
        pieces.append(mask)
        lo.extend([start] * len(mask))
        hi.extend([end] * len(mask))
        last = end
    pieces.append(text[last:])
    lo.extend(range(last, len(text)))
    hi.extend(range(last + 1, len(text) + 1))
    return View("".join(pieces), tuple(lo), tuple(hi))


_RUN_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")


# A group's label as the analysis writes it (analyze/groups.py: ~6K/C4, ~512/C256, ~6K/R2.0) and a run's group
# as the per-run table does (present/tables.py: 8192/C256), lowercased.
_GROUP_LABEL = re.compile(r"(?:~(?:[0-9]+k?|\?)|[0-9]{3,})/(?:c[0-9]+|r[0-9]+(?:\.[0-9]+)?)")
_LABEL_CHARS = frozenset("0123456789k?~")


# What a run id's component or a group label's load can be, lowercased: r1, 8192, c256, rate2.0, r2.0.
_COMPONENT = re.compile(r"(?:r|c|rate)?[0-9]+(?:\.[0-9]+)?")


def _run_id_component(text: str, lower: str, start: int, end: int) -> bool:
    """Whether ``lower[start:end]`` is one whole component of a run id standing as a token of its own, or the
    load of a group's label (``C256`` of ``~8K/C256``): a known value's part spelled ``c256``, ``r12`` or
    ``rate2.0`` (a host ``c256.hpc.lab.internal``'s short name) is hunted everywhere else, but replacing it
    inside the run ids and the labels would rename the runs and the groups, and nothing private is in them. A
    label's load is written in capitals (``C256``, ``R2.0``): ``12/c4`` in a log is no label."""
    if end - start > 16 or _COMPONENT.fullmatch(lower, start, end) is None:
        return False  # the common case: a host, a path, a model name is no run id's component
    if start > 1 and lower[start - 1] == "/" and text[start] in "CR":
        first = start - 1
        while first > 0 and lower[first - 1] in _LABEL_CHARS and start - first < 10:
            first -= 1
        if (
            _GROUP_LABEL.fullmatch(lower, first, end) is not None
            and (first == 0 or not (lower[first - 1].isalnum() or lower[first - 1] in "/._-"))
            and not (end < len(lower) and (lower[end].isalnum() or lower[end] == "/" or (lower[end] == "." and lower[end + 1 : end + 2].isdigit())))
        ):
            return True
    first, last = start, end
    while first > 0 and lower[first - 1] in _RUN_ID_CHARS and start - first < 32:
        first -= 1
    while last < len(lower) and lower[last] in _RUN_ID_CHARS and last - end < 32:
        last += 1
    if (first > 0 and lower[first - 1] in _RUN_ID_CHARS) or (last < len(lower) and lower[last] in _RUN_ID_CHARS):
        return False  # a longer token than the window: no run id, whatever its last 32 characters spell
    token = lower[first:last].strip(".-")
    offset = first + (len(lower[first:last]) - len(lower[first:last].lstrip(".-")))
    match = RUN_ID.fullmatch(token)
    if match is None:
        return False
    parts, at = [], offset
    for part in token.split("-"):
        parts.append((at, at + len(part)))
        at += len(part) + 1
    return (start, end) in parts


# A secret found by its label (``"password": "…"``, a JWK's ``"d": "…"``) has no shape of its own: like a
# host's short name, it is learnt, so the value is found where it stands alone (a JSON file gives the label
# and its value as two strings). A token found by its shape is found by it wherever it is.
_LABELLED_TOKEN = "labelled-token"


def _teaches(cls: str, value: str) -> Iterable[KnownValue]:
    """What a detector hit teaches: the value itself, or the part of it found elsewhere alone."""
    if cls not in _DISCOVER:
        return ()
    if cls == "url":
        try:
            host = split_url(value).hostname
        except ValueError:  # not a URL even in its NFKC form: the detector's hit itself is masked
            return []
        return [KnownValue("host", host)] if host else []
    if cls == "path":
        parts = re.split(r"[/\\]", value)
        found = []
        for index, part in enumerate(parts):
            if part.startswith("models--"):
                found.append(KnownValue("model", part))
            elif index > 0 and parts[index - 1] in ("home", "Users") and part:
                found.append(KnownValue("user", part))
        return found
    return [KnownValue(cls, value)]


class Matcher:
    """Finds private values: known spellings, detectors and labelled values, in every view.

    ``known`` are the values to hunt for in every variant; ``public`` words are never
    private (the policy adds to the built-in list); ``disabled`` names detector classes
    the policy turned off (``label`` turns off labelled values); ``allowed`` holds
    detector hits known to be public, such as the hashes the toolkit publishes.
    ``trust_pseudonyms`` (for a bundle redacted before: true, or the kind of pseudonyms its
    receipts name, ``counter`` or ``hmac-sha256``) leaves values spelled like such a
    pseudonym alone; otherwise a real value spelled like one (a host ``gpu-7``) is hunted.
    """

    def __init__(
        self,
        known: Iterable[KnownValue] = (),
        *,
        public: Iterable[str] = (),
        disabled: Iterable[str] = (),
        allowed: Iterable[str] = (),
        trust_pseudonyms: bool | str = False,
        declared: Iterable[KnownValue] = (),
        cache: dict[str, Examined] | None = None,
    ):
        self.public = {word.lower() for word in public}
        disabled = frozenset(disabled)
        self.detectors = compile_detectors(disabled)
        self.labels = "label" not in disabled
        self.allowed = {item.lower() for item in allowed}
        self.trust_pseudonyms = bool(trust_pseudonyms)
        self._kind = trust_pseudonyms if isinstance(trust_pseudonyms, str) else None  # the earlier redaction's
        self.redacted_text = trust_pseudonyms  # a detector hit spelled like a pseudonym is one (see for_scanning)
        self.table: dict[str, Variant] = {}
        for value in known:
            self._add(value)
        for value in declared:
            # A value the operator declares is hunted even when it is a built-in public word
            # (a project called "Falcon"); the policy refuses the evidence format's own words.
            folded = lowered(value.value.strip())
            if len(folded) >= 2 and folded not in self.table:
                self.table[folded] = Variant(value.value.strip(), value.cls, value.value.strip())
        self.pattern = compile_spellings(self.table)
        self.cache: dict[str, Examined] = {} if cache is None else cache
        self._known_only: dict[str, tuple[Hit, ...]] = {}
        self._redacted: dict[str, tuple[str, tuple[tuple[str, int], ...]]] = {}
        self.clean_literals: set[str] = set()  # JSON literals the scanner found clean
        self._numeric: frozenset[str] | None | bool = False

    def _add(self, known: KnownValue) -> None:
        for variant in variants(known):
            folded = lowered(variant.text)  # the text is folded the same way, letter for letter
            if folded in self.public or folded in self.table or (self.trust_pseudonyms and is_pseudonym(variant.text, self._kind)):
                continue
            self.table[folded] = variant

    def allow(self, hits: Iterable[str]) -> None:
        """Detector hits that are public after all (the hashes the toolkit publishes)."""
        self.allowed |= {hit.lower() for hit in hits}
        self.cache.clear()
        self.clean_literals.clear()

    def for_scanning(self, hashes: Iterable[str]) -> None:
        """Look at redacted output from now on: the published hashes are public, and a detector
        hit spelled like a pseudonym is one. (In raw evidence a host may be called ``gpu-2``.)"""
        self.redacted_text = True
        self.allow(hashes)

    def has_numbers(self) -> bool:
        """Whether any known value is all digits (a serial): only then can a JSON number be private."""
        if self._numeric is False:
            self._numeric = frozenset(t for t in self.table if t.isdigit()) or None
        return self._numeric is not None

    def numbers(self, text: str) -> list[Hit]:
        """Known values that are all digits (serials) written anywhere in ``text``, JSON numbers included."""
        if not self.has_numbers():
            return []
        return [
            Hit(m.start(), m.end(), self.table[m.group()].cls, "known", self.table[m.group()].entity)
            for m in DIGIT_RUN.finditer(text)
            if m.group() in self._numeric  # type: ignore[operator]
        ]

    # -- finding ---------------------------------------------------------------------------

    def _known_hits(self, text: str) -> list[tuple[int, int, Variant, bool]]:
        """``(start, end, variant, widened)`` of each known spelling, leftmost and longest first."""
        if self.pattern is None:
            return []
        lower = lowered(text)
        hits: list[tuple[int, int, Variant, bool]] = []
        last = 0
        own: tuple[int, int] | None = None  # the last hit's own match, when widened to the right over digits
        for match in self.pattern.finditer(lower):
            start, end = match.span()
            if start < last:
                if own is None or start < own[1]:
                    continue  # inside a value widened below
                # Another known spelling starts inside the digits or hex word the last hit was widened
                # over (gpu-node-17Deadbeef Bazooka, the codename "Deadbeef Bazooka"): the widening
                # stops where it starts, so that value is never swallowed and skipped.
                first, _, previous, _ = hits[-1]
                hits[-1] = (first, start, previous, (first, start) != own)
                last = start
            own = None
            spelling = match.group()
            variant = self.table[spelling]
            if _run_id_component(text, lower, start, end):
                continue  # r1-8192-c256 is the collector's name for a run, not the folder c256 of a private path
            if variant.cls == "domain" and start > last and lower[start - 1] == ".":
                # A name under a known domain (gpu-node-18 under lab.acme-corp.internal) is a host
                # of its own, not a bare label left in front of the domain's pseudonym.
                while start > last and (lower[start - 1].isalnum() or lower[start - 1] in ".-"):
                    start -= 1
                hits.append((start, end, Variant(text[start:end], "host", text[start:end]), True))
                last = end
                continue
            if variant.exact:
                # Base64 of a value: the whole encoded run goes (it cannot be cut at a value's edge).
                while end < len(lower) and lower[end] in _BASE64:
                    end += 1
                while start > last and lower[start - 1] in _BASE64:
                    start -= 1
                widened = False
            else:
                # A long spelling matches inside longer text, but digits that go on make another value:
                # 10.20.30.2 in 10.20.30.23, gpu-node-1 in gpu-node-17 (with the hex digits that follow
                # them, and a fingerprint's hex digits). Replacing the known part would leave them glued
                # to the pseudonym (ip-1 and 3 read as ip-13) and give two values one name: the whole
                # run is a value of the same class, of its own. Letters that go on are left alone: they
                # may start another value; unless the word they make is all hex digits (secreta00000),
                # which a counter pseudonym's last digit would join into a fingerprint (path-1a00000).
                hexadecimal = _HEX_DIGITS.issuperset(spelling)
                if (
                    spelling[-1].isalnum()
                    and end < len(lower)
                    and (lower[end].isdigit() or (lower[end] in _HEX_DIGITS and (hexadecimal or _hex_word(lower, end))))
                ):
                    while end < len(lower) and lower[end] in _HEX_DIGITS:
                        end += 1
                before = _HEX_DIGITS if hexadecimal else _DIGITS
                if spelling[0] in before and start > last and lower[start - 1] in before:
                    while start > last and lower[start - 1] in before:
                        start -= 1
                widened = (start, end) != match.span()
                if end > match.end():
                    own = match.span()
            hits.append((start, end, variant, widened))
            last = end
        return hits

    def _detector_hits(self, text: str) -> list[tuple[int, int, str]]:
        """``(start, end, class)`` of the detectors' and the labels' hits; a labelled secret's class is
        ``labelled-token`` here (see :func:`_teaches`), ``token`` everywhere else."""
        found = [h for h in find(self.detectors, text) if not self._is_allowed(text[h[0] : h[1]].lower())]
        if self.labels:
            found.extend((s, e, _LABELLED_TOKEN if c == "token" else c) for s, e, c in find_labelled(text) if not self._is_allowed(text[s:e].lower()))
        if self.redacted_text and found:
            found = self._outside_pseudonyms(text, found)
        found.sort(key=lambda h: (h[0], -(h[1] - h[0])))
        kept: list[tuple[int, int, str]] = []
        for hit in found:
            if not kept or hit[0] >= kept[-1][1]:
                kept.append(hit)
        return kept

    def _outside_pseudonyms(self, text: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        """In redacted text, drop an address hit that a pseudonym's own characters made: an ``ip`` hit that
        overlaps a pseudonym without lying inside it, unless the detectors still find one there with every
        pseudonym spelled as ``x``s (a word, as the name it replaced was) or as spaces (nothing at all).
        ``host-1::000`` is no address: ``1::000`` takes the pseudonym's ``1`` and ``::000`` alone is the
        unspecified address; ``host-1::1234:5678:9abc:def0`` still is one (``::1234:…`` alone), so it
        stays a finding, and so does every other class of hit (a MAC's octets beside a pseudonym): the
        scan fails closed wherever the allowance is not needed."""
        spans = [m.span() for m in PSEUDONYM_ANYWHERE.finditer(text)]
        if not spans:
            return found
        plain: list[tuple[int, int, str]] | None = None
        kept = []
        for start, end, cls in found:
            if cls != "ip" or not any(a < end and start < b and not (a <= start and end <= b) for a, b in spans):
                kept.append((start, end, cls))
                continue
            if plain is None:
                plain = []
                for fill in ("x", " "):
                    letters = list(text)
                    for a, b in spans:
                        letters[a:b] = fill * (b - a)
                    plain += find(self.detectors, "".join(letters))
            if any(a < end and start < b for a, b, _ in plain):
                kept.append((start, end, cls))
        return kept

    def _is_allowed(self, hit: str) -> bool:
        # In redacted text a pseudonym is already redacted (a second redaction changes no byte);
        # in raw evidence it is a real name spelled like one. The masks of known values never count.
        return (
            hit in self.allowed
            or hit in self.public
            or _MASKED.fullmatch(hit) is not None
            or (bool(self.redacted_text) and is_pseudonym(hit, self._kind))
        )

    def _view_hits(self, text: str, view: View | None, detectors: bool, learnt: set[KnownValue]) -> list[tuple[int, int, Hit]]:
        """Hits in ``text`` (the text itself, or a decoded ``view`` of it) as ``(start, end, hit)``
        in the original text's positions."""
        span = view.span if view is not None else lambda start, end: (start, end)
        out: list[tuple[int, int, Hit]] = []
        known = self._known_hits(text)
        for start, end, variant, widened in known:
            entity = text[start:end] if widened else variant.entity
            if widened:
                learnt.add(KnownValue(variant.cls, entity))
            out.append((*span(start, end), Hit(0, 0, variant.cls, "known", entity)))
        if detectors:
            masked = _masked(text, [(s, e, v.cls) for s, e, v, _ in known]) if known else None
            seen = masked.text if masked is not None else text
            for start, end, cls in self._detector_hits(seen):
                if masked is not None:
                    start, end = masked.span(start, end)  # a hit over a mask covers the known value whole
                if cls == _LABELLED_TOKEN:
                    cls = "token"
                    learnt.add(KnownValue("token", text[start:end]))
                value = canonical(cls, text[start:end])
                learnt.update(_teaches(cls, value))
                out.append((*span(start, end), Hit(0, 0, cls, "detector", value)))
        return out

    def _examine(self, text: str, detectors: bool) -> Examined:
        learnt: set[KnownValue] = set()
        found = [(s, e, 0, hit) for s, e, hit in self._view_hits(text, None, detectors, learnt)]
        for index, view in enumerate(views(text), start=1):
            found += [(s, e, index, hit) for s, e, hit in self._view_hits(view.text, view, detectors, learnt)]
        if not found:
            return Examined((), frozenset(learnt))
        # Hits of different views can overlap (a name inside a URL-encoded path): each run of
        # overlapping hits is replaced as one, named after its longest hit.
        found.sort(key=lambda h: (h[0], h[0] - h[1], h[2]))
        merged: list[Hit] = []
        group_start, group_end, label = found[0][0], found[0][1], found[0][3]
        longest = group_end - group_start
        for start, end, _, hit in found[1:]:
            if start < group_end:
                if end - start > longest:
                    label, longest = hit, end - start
                group_end = max(group_end, end)
                continue
            merged.append(label._replace(start=group_start, end=group_end))
            group_start, group_end, label, longest = start, end, hit, end - start
        merged.append(label._replace(start=group_start, end=group_end))
        return Examined(tuple(merged), frozenset(learnt))

    def examine(self, text: str) -> Examined:
        """Every private thing in ``text`` (or in a decoded view of it) and what it teaches."""
        cached = self.cache.get(text)
        if cached is None:
            cached = self._examine(text, True)
            if len(self.cache) < CACHE_LIMIT:
                self.cache[text] = cached
        return cached

    def leaks(self, text: str) -> list[Hit]:
        """Every private thing in ``text`` or in a decoded view of it; replaces nothing."""
        return list(self.examine(text).hits)

    def known_leaks(self, text: str) -> list[Hit]:
        """Known values only (in ``text`` and its decoded views), no detectors."""
        cached = self._known_only.get(text)
        if cached is None:
            cached = self._examine(text, False).hits
            if len(self._known_only) < CACHE_LIMIT:
                self._known_only[text] = cached
        return list(cached)

    def mask(self, text: str) -> str:
        """``text`` with each private span shown as ``[class]``: how findings name a leaky file."""
        pieces, last = [], 0
        for hit in self.examine(text).hits:
            pieces += [text[last : hit.start], f"[{hit.cls}]"]
            last = hit.end
        return "".join(pieces) + text[last:]

    # -- redaction -------------------------------------------------------------------------

    def redact(self, text: str, pseudonyms: Pseudonyms) -> tuple[str, Counter[str]]:
        """``text`` with every private span replaced by its pseudonym, and counts per class."""
        cached = self._redacted.get(text)
        if cached is not None:
            return cached[0], Counter(dict(cached[1]))
        counts: Counter[str] = Counter()
        pieces: list[str] = []
        last = 0
        for hit in self.examine(text).hits:
            counts[hit.cls] += 1
            pieces += [text[last : hit.start], pseudonyms.name(hit.cls, hit.entity)]
            last = hit.end
        out = "".join(pieces) + text[last:] if pieces else text
        if len(self._redacted) < CACHE_LIMIT:
            self._redacted[text] = (out, tuple(counts.items()))
        return out, counts
