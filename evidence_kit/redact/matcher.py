"""One matcher for the redactor and the scanner: known values first, then detectors.

The redactor and the scanner must agree exactly on what is private, so both go
through :class:`Matcher`. It holds the table of known spellings (every variant
of every known value, case-folded), the compiled detectors, and the
pseudonymiser. Text is looked at as written *and* in its decoded views
(``\\uXXXX``/``\\/`` escapes, URL escapes, HTML entities), so a value cannot hide
behind an escape.

Results are cached per distinct string: journals repeat the same keys and
values on every line, which is what makes redaction fast. The caches are
bounded and cleared whenever a new value is discovered.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Iterable, Iterator, NamedTuple
from urllib.parse import unquote, urlsplit

from .detectors import compile_detectors, find, find_labelled
from .pseudonyms import Pseudonyms, is_pseudonym
from .variants import KnownValue, Variant, variants

__all__ = ["Matcher", "Hit", "views"]

_CACHE_LIMIT = 200_000
_RECENT_LIMIT = 256  # spellings in the small pattern before the full one is rebuilt
_QUIET_LIMIT = 2_000  # lookups without a new value before the two patterns become one again
_DIGITS = frozenset("0123456789")
_HEX_DIGITS = frozenset("0123456789abcdef")
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\/")
_URL_ESCAPE = re.compile("%[0-9a-fA-F]{2}")  # without one, unquote returns the text as it was
# Detector classes whose hits teach us a value that may appear elsewhere without the
# shape the detector needs (a host's short name, a labelled serial, a GPU UUID without
# its prefix). Hex fingerprints, UUIDs and tokens are found by shape wherever they are.
_DISCOVER = frozenset({"host", "email", "url", "gpu", "ip", "mac", "serial", "container", "image", "path", "user", "value"})


def _trie(texts: list[str]) -> str:
    """A regex matching any of ``texts``, sharing prefixes, preferring the longest."""
    root: dict[str, dict] = {}
    for text in texts:
        node = root
        for char in text:
            node = node.setdefault(char, {})
        node[""] = {}

    # Built bottom-up without recursion: a spelling can be thousands of characters long
    # (a start command), deeper than Python's recursion limit.
    order: list[dict[str, dict]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(child for char, child in node.items() if char)
    built: dict[int, str] = {}
    for node in reversed(order):  # every child comes before its parent
        branches = [re.escape(char) + built[id(child)] for char, child in sorted(node.items()) if char]
        body = "" if not branches else branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        built[id(node)] = f"(?:{body})?" if body and "" in node else body
    return "(?:" + built[id(root)] + ")"


def _bucket(text: str) -> tuple[bool, bool]:
    """Whether a spelling needs a word boundary before and after it (short or all-digit ones do)."""
    bounded = len(text) < 8 or text.isdigit()
    return bounded and text[0].isalnum(), bounded and text[-1].isalnum()


def _compile_known(texts: list[str]) -> re.Pattern[str] | None:
    """One trie per boundary bucket, unbounded (long) spellings first, joined in one pattern."""
    buckets: dict[tuple[bool, bool], list[str]] = {}
    for text in texts:
        buckets.setdefault(_bucket(text), []).append(text)
    parts = []
    for (before, after), bucket in sorted(buckets.items()):
        parts.append((r"(?<![a-z0-9])" if before else "") + _trie(bucket) + (r"(?![a-z0-9])" if after else ""))
    return re.compile("|".join(parts)) if parts else None


def _before(first: str, second: str) -> bool:
    """Which of two spellings matching at one position a single alternation would take."""
    first_bucket, second_bucket = _bucket(first), _bucket(second)
    if first_bucket != second_bucket:
        return first_bucket < second_bucket
    return len(first) > len(second)


class Hit(NamedTuple):
    """One private thing in a text: where, which class, found how (``known``/``detector``)."""

    start: int
    end: int
    cls: str
    source: str


def _unescape_json(text: str) -> str:
    return _JSON_ESCAPE.sub(lambda m: "/" if m.group(1) is None else chr(int(m.group(1), 16)), text)


def views(text: str) -> list[str]:
    """Decoded spellings of ``text`` that differ from it (escapes a value could hide behind)."""
    out: list[str] = []
    if "\\" in text:
        out.append(_unescape_json(text))
    if "%" in text and _URL_ESCAPE.search(text):
        out.append(unquote(text))
    if "&" in text:
        out.append(html.unescape(text))
    return [view for view in out if view != text]


class Matcher:
    """Finds and replaces private values: known spellings, detectors and labelled values.

    ``public`` words are never private (the policy adds to the built-in list);
    ``disabled`` names detector classes the policy turned off (``label`` turns off
    labelled values); ``allowed`` holds detector hits that are known to be
    public, such as the hashes the toolkit publishes (lowercase).
    """

    def __init__(
        self,
        pseudonyms: Pseudonyms,
        *,
        public: Iterable[str] = (),
        disabled: Iterable[str] = (),
        allowed: Iterable[str] = (),
    ):
        self.pseudonyms = pseudonyms
        self.public = {word.lower() for word in public}
        disabled = frozenset(disabled)
        self.detectors = compile_detectors(disabled)
        self.labels = "label" not in disabled
        self.allowed = {item.lower() for item in allowed}
        self.table: dict[str, Variant] = {}
        self.generation = 0
        self._pattern: re.Pattern[str] | None = None
        self._compiled = -1
        self._base: re.Pattern[str] | None = None  # the first _base_size spellings
        self._base_size = 0
        self._recent: re.Pattern[str] | None = None  # the spellings after them
        self._recent_generation = -1
        self._quiet = 0
        self._redacted: dict[str, tuple[str, tuple[tuple[str, int], ...]]] = {}
        self._leaks: dict[str, list[Hit]] = {}
        self.clean_literals: set[str] = set()  # JSON literals the scanner found clean (for this table)
        self._numeric: re.Pattern[str] | None = None
        self._numeric_generation = -1

    # -- the table of known spellings -------------------------------------------------

    def add(self, known: KnownValue) -> bool:
        """Learn ``known`` and all its variants; true when something new was learnt."""
        new = False
        for variant in variants(known):
            folded = variant.text.lower()
            if folded in self.public or folded in self.table or len(folded) != len(variant.text):
                continue
            self.table[folded] = variant
            new = True
        if new:
            self.generation += 1
            self._redacted.clear()
            self._leaks.clear()
            self.clean_literals.clear()
        return new

    def known_pattern(self) -> re.Pattern[str] | None:
        """Every known spelling in one pattern (tries, longest first), matched on lowercased text.

        Spellings shorter than 8 characters and all-digit ones match only as whole
        words ("alice" not in "malice"); the regex backtracks to a shorter spelling
        when a longer one fails its boundary.
        """
        if self._compiled != self.generation:
            self._pattern = _compile_known(list(self.table))
            self._compiled = self.generation
        return self._pattern

    def _spellings_in(self, lowered: str) -> Iterator[tuple[int, int, str]]:
        """``(start, end, spelling)`` exactly as ``known_pattern().finditer`` gives them, cheaper to keep up.

        Each new value would recompile the whole pattern (milliseconds for a large table,
        and logs teach hundreds of addresses). So spellings learnt since the last full
        compile go into a small second pattern, and the two are merged the way one
        alternation would choose: the leftmost match; at one position the earlier
        boundary bucket, then the longer spelling (each bucket is a trie preferring the
        longest that passes its boundary). The full pattern is rebuilt once the second
        grows past ``_RECENT_LIMIT`` or has stopped changing for ``_QUIET_LIMIT`` lookups.
        """
        if self._recent_generation != self.generation:
            spellings = list(self.table)
            if self._base_size == 0 or len(spellings) - self._base_size > _RECENT_LIMIT:
                self._base, self._base_size, self._recent = _compile_known(spellings), len(spellings), None
            else:
                self._recent = _compile_known(spellings[self._base_size:])
            self._recent_generation = self.generation
            self._quiet = 0
        base, recent = self._base, self._recent
        if recent is None:
            if base is not None:
                for match in base.finditer(lowered):
                    yield match.start(), match.end(), match.group()
            return
        self._quiet += 1
        if self._quiet > _QUIET_LIMIT:  # no longer learning: one pattern again from the next lookup
            self._base_size, self._recent_generation = 0, -1
        pos = 0
        old = base.search(lowered) if base is not None else None
        new = recent.search(lowered)
        while old is not None or new is not None:
            if old is not None and (new is None or old.start() < new.start()
                                    or (old.start() == new.start() and _before(old.group(), new.group()))):
                chosen = old
            else:
                chosen = new  # type: ignore[assignment]
            yield chosen.start(), chosen.end(), chosen.group()
            pos = chosen.end()
            if old is not None and old.start() < pos:
                old = base.search(lowered, pos)  # type: ignore[union-attr]
            if new is not None and new.start() < pos:
                new = recent.search(lowered, pos)

    def numeric_pattern(self) -> re.Pattern[str] | None:
        """Known values that are all digits (serial numbers): the only ones a JSON number can hold."""
        if self._numeric_generation != self.generation:
            digits = sorted((t for t in self.table if t.isdigit()), key=lambda t: (-len(t), t))
            self._numeric = re.compile(r"(?<![0-9])(?:%s)(?![0-9])" % "|".join(digits)) if digits else None
            self._numeric_generation = self.generation
        return self._numeric

    def allow(self, hits: Iterable[str]) -> None:
        """Detector hits that are public after all (the hashes the toolkit publishes)."""
        self.allowed |= {hit.lower() for hit in hits}
        self._leaks.clear()
        self.clean_literals.clear()

    def known_leaks(self, text: str) -> list[Hit]:
        """Known values only (in ``text`` and its decoded views), no detectors."""
        return [Hit(s, e, v.cls, "known") for view in (text, *views(text)) for s, e, v in self._known_hits(view)]

    def _known_hits(self, text: str) -> list[tuple[int, int, Variant]]:
        if not self.table:
            return []
        lowered = text.lower()
        if len(lowered) != len(text):  # rare letters whose lowercase is longer: match char by char
            lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        hits: list[tuple[int, int, Variant]] = []
        last = 0
        for start, end, spelling in self._spellings_in(lowered):
            span = (start, end)
            if start < last:
                continue  # inside a value widened below
            variant = self.table[spelling]
            # A long spelling matches inside longer words ("gpu-node-1" in "xgpu-node-1y"), but digits
            # that go on make another value: 10.20.30.2 in 10.20.30.23, gpu-node-1 in gpu-node-17
            # (and hex digits a fingerprint). Replacing the known part would leave the rest and give
            # two values one pseudonym: the whole run is a value of the same class, of its own.
            more = _HEX_DIGITS if _HEX_DIGITS.issuperset(spelling) else _DIGITS
            if spelling[-1] in more and end < len(lowered) and lowered[end] in more:
                while end < len(lowered) and lowered[end] in more:
                    end += 1
            if spelling[0] in more and start > last and lowered[start - 1] in more:
                while start > last and lowered[start - 1] in more:
                    start -= 1
            if (start, end) != span:
                variant = Variant(text[start:end], variant.cls, text[start:end])
            hits.append((start, end, variant))
            last = end
        return hits

    def _detector_hits(self, text: str) -> list[tuple[int, int, str]]:
        found = [h for h in find(self.detectors, text) if not self._is_allowed(text[h[0]:h[1]].lower())]
        if self.labels:
            found.extend(h for h in find_labelled(text) if not self._is_allowed(text[h[0]:h[1]].lower()))
        found.sort(key=lambda h: (h[0], -(h[1] - h[0])))
        kept: list[tuple[int, int, str]] = []
        for hit in found:
            if not kept or hit[0] >= kept[-1][1]:
                kept.append(hit)
        return kept

    def _is_allowed(self, hit: str) -> bool:
        # A pseudonym is already redacted: that keeps a second redaction from changing a byte.
        return hit in self.allowed or hit in self.public or is_pseudonym(hit)

    def _discover(self, cls: str, text: str) -> None:
        if cls not in _DISCOVER:
            return
        if cls == "url":
            host = urlsplit(text).hostname
            if host:
                self.add(KnownValue("host", host))
        elif cls == "path":
            parts = re.split(r"[/\\]", text)
            for index, part in enumerate(parts):
                if part.startswith("models--"):
                    self.add(KnownValue("model", part))
                elif index > 0 and parts[index - 1] in ("home", "Users") and part:
                    self.add(KnownValue("user", part))
        else:
            self.add(KnownValue(cls, text))

    # -- redaction ----------------------------------------------------------------------

    def _replace(self, text: str, counts: Counter[str]) -> str:
        def known(match_start: int, match_end: int, variant: Variant) -> str:
            counts[variant.cls] += 1
            return self.pseudonyms.name(variant.cls, variant.entity)

        pieces: list[str] = []
        last = 0
        for start, end, variant in self._known_hits(text):
            pieces += [text[last:start], known(start, end, variant)]
            last = end
            if variant.text.lower() not in self.table:  # a value widened from a known one
                self.add(KnownValue(variant.cls, variant.entity))
        text = "".join(pieces) + text[last:] if pieces else text
        hits = self._detector_hits(text)
        if not hits:
            return text
        pieces, last = [], 0
        for start, end, cls in hits:
            value = text[start:end]
            counts[cls] += 1
            pieces += [text[last:start], self.pseudonyms.name(cls, value)]
            last = end
            self._discover(cls, value)
        return "".join(pieces) + text[last:]

    def redact(self, text: str) -> tuple[str, Counter[str]]:
        """``text`` with every private value replaced by its pseudonym, and counts per class."""
        cached = self._redacted.get(text)
        if cached is not None:
            return cached[0], Counter(dict(cached[1]))
        counts: Counter[str] = Counter()
        generation = self.generation
        out = self._replace(text, counts)
        for _ in range(4):
            if generation == self.generation:
                break
            # The text taught us a value (a host's short name may follow its full name).
            generation = self.generation
            out = self._replace(out, counts)
        for _ in range(4):
            # A value behind an escape: redact the decoded text (the escaping is lost, the value too).
            leaky = next((view for view in views(out) if self.leaks(view)), None)
            if leaky is None:
                break
            out = self._replace(leaky, counts)
        if len(self._redacted) >= _CACHE_LIMIT:
            self._redacted.clear()
        self._redacted[text] = (out, tuple(counts.items()))
        return out, counts

    # -- scanning -----------------------------------------------------------------------

    def mask(self, text: str) -> str:
        """``text`` with each private span shown as ``[class]``: how findings name a leaky file."""
        spans = [(s, e, v.cls) for s, e, v in self._known_hits(text)] + self._detector_hits(text)
        if not spans:
            return f"[{self.leaks(text)[0].cls}]" if self.leaks(text) else text
        pieces, last = [], 0
        for start, end, cls in sorted(spans):
            if start >= last:
                pieces += [text[last:start], f"[{cls}]"]
                last = end
        return "".join(pieces) + text[last:]

    def leaks(self, text: str) -> list[Hit]:
        """Every private thing in ``text`` or in a decoded view of it; replaces nothing."""
        cached = self._leaks.get(text)
        if cached is not None:
            return cached
        found: list[Hit] = []
        for view in [text, *views(text)]:
            found += [Hit(s, e, v.cls, "known") for s, e, v in self._known_hits(view)]
            found += [Hit(s, e, cls, "detector") for s, e, cls in self._detector_hits(view)]
        if len(self._leaks) >= _CACHE_LIMIT:
            self._leaks.clear()
        self._leaks[text] = found
        return found
