"""What discovery's reading of a JSONL file leaves for the rewrite and the scan.

Discovery reads every JSONL file a batch of lines at a time, checks each line and
splits the batch at its quotes to list its literals. The rewrite reads the same
batches again, and the scan reads the output, whose lines correspond one to one
(a rewrite keeps every line a line). Discovery notes, for each batch, how many lines
it holds and, when it has no backslash, no ``private`` key and few distinct literals,
those literals and a digest of its text.

- The rewrite takes the literals noted for the batch at the same place (same index,
  same line count, every batch before it as noted) instead of splitting it again; when
  every one is clean it copies the batch as it is, and records that it did.
- The scan reads the output batch at the same place and takes the noted literals
  only when its digest is the one noted: then it *is* that batch, whose lines were
  each checked to be JSON, so it is neither split nor parsed again.

Should the raw file change between discovery and the rewrite, a batch copied on
stale notes was never examined by the rewrite, and the scan alone is no substitute
(it reads output, where a detector hit spelled like a pseudonym is one: a raw
``hostname=gpu-2`` would pass). Such a batch differs from the noted text, so the scan
reports it as changed while it was redacted: the bundle is not publishable.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["Ledger", "Noted", "batch_digest", "MAX_NOTED"]

MAX_NOTED = 4096  # distinct literals of one batch worth remembering (journals repeat a few dozen)


def batch_digest(text: str) -> bytes:
    """A collision-resistant digest of a batch's text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class Noted(NamedTuple):
    """One batch as discovery read it: its line count, and its digest and literals when noted."""

    lines: int
    digest: bytes | None = None
    contents: frozenset[str] | None = None


@dataclass
class Ledger:
    """One JSONL file as discovery read it, batch by batch."""

    batches: list[Noted] = field(default_factory=list)
    copied: set[int] = field(default_factory=set)  # batches the rewrite copied on their notes alone

    def note(self, batch: str, lines: int, contents: list[str] | None) -> None:
        """Record a batch of ``lines`` lines; ``contents`` are its literals when it may be noted."""
        if contents is not None and len(contents) <= MAX_NOTED:
            self.batches.append(Noted(lines, batch_digest(batch), frozenset(contents)))
        else:
            self.batches.append(Noted(lines))

    def holds(self, index: int, lines: int) -> bool:
        """Whether discovery read an ``index``-th batch, and of ``lines`` lines."""
        return index < len(self.batches) and self.batches[index].lines == lines

    def verified(self, index: int, batch: str) -> frozenset[str] | None:
        """The literals noted for the ``index``-th batch when ``batch`` is its very text."""
        if index < len(self.batches) and self.batches[index].digest is not None:
            noted = self.batches[index]
            if batch_digest(batch) == noted.digest:
                return noted.contents
        return None
