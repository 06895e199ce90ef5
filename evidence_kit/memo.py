"""A bounded memo of a pure function of one text, kept in the process's memory and nowhere else.

Reading a page the way a browser does (html5lib) and drawing a chart (vl-convert) are each a pure
function of one text: the page's HTML, the chart's Vega-Lite spec. Called again with the same text
in the same process (a site rebuilt and verified, a page published as it was generated, a test
that verifies many copies of one site), the answer is the same, so it is kept: never on disk (where
another program could rewrite it), never keyed by anything but the whole text, and within a budget of
characters, the least recently used forgotten first.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Memo", "footprint"]

V = TypeVar("V")


def _characters(text: str, value: object) -> int:
    """The key's characters, and a text or bytes answer's."""
    return len(text) + (len(value) if isinstance(value, bytes | str) else 0)


def footprint(value: object) -> int:
    """The bytes ``value`` holds: its own and those of every container, object and text inside it, each once."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple | set | frozenset):
            stack += item
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            stack.append(vars(item))
    return total


class Memo(Generic[V]):
    """``get(text, make)``: ``make()``'s answer for ``text``, made once while it stays within the budget.

    ``weigh(text, answer)`` is what one entry costs of the budget (by default the characters of the key and
    of a text or bytes answer; an answer of many small objects must say what it holds). Safe to share
    between threads: two that make one text at once keep one entry, counted once."""

    def __init__(self, budget: int, weigh: Callable[[str, V], int] = _characters):
        self.budget = budget  # the most the kept entries may weigh together (by ``weigh``)
        self.used = 0
        self.entries: OrderedDict[str, tuple[V, int]] = OrderedDict()
        self._weigh = weigh
        self._lock = threading.Lock()

    def get(self, text: str, make: Callable[[], V]) -> V:
        with self._lock:
            found = self.entries.get(text)
            if found is not None:
                self.entries.move_to_end(text)
                return found[0]
        value = make()  # outside the lock: another text is not kept waiting
        size = self._weigh(text, value)
        if size > self.budget:
            return value
        with self._lock:
            before = self.entries.pop(text, None)  # made meanwhile by another caller: replaced, not counted twice
            self.used -= before[1] if before is not None else 0
            self.entries[text] = (value, size)
            self.used += size
            while self.used > self.budget:
                _, (_, dropped) = self.entries.popitem(last=False)
                self.used -= dropped
        return value
