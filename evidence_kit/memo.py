"""A bounded memo of a pure function of one text, kept in the process's memory and nowhere else.

Reading a page the way a browser does (html5lib) and drawing a chart (vl-convert) are each a pure
function of one text: the page's HTML, the chart's Vega-Lite spec. Called again with the same text
in the same process (a site rebuilt and verified, a page published as it was generated, a test
that verifies many copies of one site), the answer is the same, so it is kept: never on disk (where
another program could rewrite it), never keyed by anything but the whole text, and within a budget of
characters, the least recently used forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Memo"]

V = TypeVar("V")


class Memo(Generic[V]):
    """``get(text, make)``: ``make()``'s answer for ``text``, made once while it stays within the budget."""

    def __init__(self, budget: int):
        self.budget = budget  # the most characters of keys (and of bytes answers) kept
        self.used = 0
        self.entries: OrderedDict[str, tuple[V, int]] = OrderedDict()

    def get(self, text: str, make: Callable[[], V]) -> V:
        found = self.entries.get(text)
        if found is not None:
            self.entries.move_to_end(text)
            return found[0]
        value = make()
        size = len(text) + (len(value) if isinstance(value, bytes | str) else 0)
        if size > self.budget:
            return value
        self.entries[text] = (value, size)
        self.used += size
        while self.used > self.budget:
            _, (_, dropped) = self.entries.popitem(last=False)
            self.used -= dropped
        return value
