"""What discovery's reading of a JSONL file leaves for the rewrite and the scan.

Discovery reads every JSONL file a batch of lines at a time, checks each line and
splits the batch at its quotes to list its literals. The rewrite and the scan read
the same batches again (the scan reads the output, whose lines correspond one to
one). A batch read again with the same digest *is* that batch: the literals listed
the first time are its literals, and its lines were each checked to be JSON. So
neither the rewrite nor the scan needs to split it again, nor the scan to parse it.
Only batches without a backslash and without a ``private`` key are noted (their
literals lie between every other quote), and only when their literals are few.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

__all__ = ["Ledger", "batch_digest", "MAX_NOTED"]

MAX_NOTED = 4096  # distinct literals of one batch worth remembering (journals repeat a few dozen)


def batch_digest(text: str) -> bytes:
    """A collision-resistant digest of a batch's text."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass
class Ledger:
    """One JSONL file as discovery read it: the line count of every batch, in order, and by
    digest the distinct literal contents of each batch it could note."""

    sizes: list[int] = field(default_factory=list)
    literals: dict[bytes, frozenset[str]] = field(default_factory=dict)

    def note(self, batch: str, lines: int, contents: list[str] | None) -> None:
        """Record a batch of ``lines`` lines; ``contents`` are its literals when it may be noted."""
        self.sizes.append(lines)
        if contents is not None and len(contents) <= MAX_NOTED:
            self.literals[batch_digest(batch)] = frozenset(contents)

    def contents(self, batch: str) -> frozenset[str] | None:
        """The literals of ``batch`` when discovery noted a batch with this very text."""
        return self.literals.get(batch_digest(batch)) if self.literals else None
