"""Known spellings compiled for matching: tries, boundaries, and the leftmost-first search.

Every spelling of every known value is matched in lowercased text by regular
expressions built as tries (shared prefixes, longest first). Spellings that need a
boundary (short words, serials) and those that match anywhere are different
patterns; :class:`Spellings` runs them together as their alternation would.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = ["Spellings", "compile_spellings", "DIGIT_RUN"]

# Boundaries, by spelling: digits (a serial) must not run on into more digits or a decimal
# fraction; short words (under 8 characters) match only as whole words ("alice" not in
# "malice"); longer spellings match anywhere.
_DIGIT_GUARDS = (r"(?<![0-9])(?<![0-9]\.)", r"(?![0-9])(?!\.[0-9])")
_WORD_GUARDS = (r"(?<![a-z0-9])", r"(?![a-z0-9])")
DIGIT_RUN = re.compile(_DIGIT_GUARDS[0] + "[0-9]+" + _DIGIT_GUARDS[1])


# Python's regex parser and compiler recurse once per nested group, so a trie nesting deeper
# than Python's recursion limit allows (hundreds of private paths each a prefix of the next:
# /srv/run/d, /srv/run/d/d, ...) cannot be compiled. A trie nesting deeper than this is split.
_MAX_NESTING = 100


TrieNode = dict[str, "TrieNode"]  # each next character to its node; "" marks a spelling's end


def _trie_nodes(texts: Iterable[str]) -> TrieNode:
    """The trie of ``texts``: a node maps each next character to a node; ``""`` marks a spelling's end."""
    root: TrieNode = {}
    for text in texts:
        node = root
        for char in text:
            node = node.setdefault(char, {})
        node[""] = {}
    return root


def _nesting(root: TrieNode) -> int:
    """How deep :func:`_trie` nests groups for this trie (without recursion)."""
    deepest = 0
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        children = [child for char, child in node.items() if char]
        if not children:
            continue
        depth += (len(children) > 1) + ("" in node)
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


def _trie(texts: list[str]) -> str:
    """A regex matching any of ``texts``, sharing prefixes, preferring the longest."""
    root = _trie_nodes(texts)
    # Written out piece by piece without recursion (a spelling can be thousands of characters
    # long, deeper than Python's recursion limit) and without keeping each node's whole subtree
    # pattern (that costs memory quadratic in a spelling's length).
    out: list[str] = []
    stack: list[object] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node: TrieNode = item  # type: ignore[assignment]
        chars = sorted(char for char in node if char)
        if not chars:
            continue
        pieces: list[object] = []
        for index, char in enumerate(chars):
            pieces += ["|", re.escape(char), node[char]] if index else [re.escape(char), node[char]]
        if len(chars) > 1:
            pieces = ["(?:", *pieces, ")"]
        if "" in node:
            pieces = ["(?:", *pieces, ")?"]
        stack.extend(reversed(pieces))
    return "(?:" + "".join(out) + ")"


def _bands(texts: list[str]) -> list[str]:
    """:func:`_trie` of ``texts``, split into several tries when one would nest too deeply to compile.

    Only a spelling and its own prefixes can match at the same place; sorted longest first, the
    spellings are cut into bands (halving until each band's trie nests little enough), and the
    bands are tried in that order, so a spelling is still tried before every prefix of it: the
    match is the longest, as in one trie.
    """
    if _nesting(_trie_nodes(texts)) <= _MAX_NESTING:
        return [_trie(texts)]
    bands: list[list[str]] = []
    pending = [sorted(texts, key=lambda text: (-len(text), text))]
    while pending:
        band = pending.pop()
        if len(band) == 1 or _nesting(_trie_nodes(band)) <= _MAX_NESTING:
            bands.append(band)
        else:
            half = len(band) // 2
            pending += [band[half:], band[:half]]  # the longer half is taken first
    return [_trie(band) for band in bands]


def _guards(text: str) -> tuple[str, str]:
    """The boundary a spelling needs before and after it (see :data:`_DIGIT_GUARDS`)."""
    if text.isdigit():
        return _DIGIT_GUARDS
    if len(text) >= 8:
        return "", ""
    return (_WORD_GUARDS[0] if text[0].isalnum() else ""), (_WORD_GUARDS[1] if text[-1].isalnum() else "")


class Spellings:
    """Several patterns searched as their alternation ``p1|p2|...`` would be, only faster.

    re scans quickly for a pattern that starts with a literal or a set of them, and
    slowly for an alternation of patterns that do not (a guard's lookbehind, another
    trie): there it tries every branch at every position. So each pattern is searched
    on its own and the matches are merged as the alternation chooses: the leftmost, and
    at one position the earliest pattern. Each pattern's next match is kept until the
    text before it has been passed (lookbehinds see the whole text, whatever the start).
    """

    def __init__(self, patterns: list[re.Pattern[str]]):
        self.patterns = patterns

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches ``re.compile("|".join(patterns)).finditer(text)`` gives (none is empty)."""
        if len(self.patterns) == 1:
            yield from self.patterns[0].finditer(text)
            return
        following = [pattern.search(text) for pattern in self.patterns]
        while True:
            best: re.Match[str] | None = None
            for match in following:
                if match is not None and (best is None or match.start() < best.start()):
                    best = match
            if best is None:
                return
            yield best
            position = best.end()
            for index, match in enumerate(following):
                if match is not None and match.start() < position:
                    following[index] = self.patterns[index].search(text, position)

    def search(self, text: str) -> re.Match[str] | None:
        """The first match, as the alternation's ``search`` finds it."""
        return next(self.finditer(text), None)


def compile_spellings(texts: Iterable[str]) -> Spellings | None:
    """The spellings (lowercased) as patterns: a trie per boundary kind, unbounded spellings first."""
    buckets: dict[tuple[str, str], list[str]] = {}
    for text in texts:
        buckets.setdefault(_guards(text), []).append(text)
    ordered = sorted(buckets.items(), key=lambda b: (len(b[0][0]) + len(b[0][1]), b[0]))
    patterns = [re.compile(before + band + after) for (before, after), bucket in ordered for band in _bands(bucket)]
    return Spellings(patterns) if patterns else None
