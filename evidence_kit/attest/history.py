"""A site's history: each signed publication states its sequence number and the digests of those before it.

A signature says who published a site, not which of their publications it is: an
older genuinely signed site served in place of the current one (rolled back, or a
decision removed and re-signed) verifies like it. So, as TUF's snapshot role and
transparency logs do, each publication's signed predicate carries
``history``: its ``sequence`` (1 for a site's first), and ``chain``, the digest of
every publication before it in order (``chain[i]`` is publication ``i + 1``;
the last is the one it ``replaces``). A publication's digest is the sha256 of its
``manifest.dsse.json``, which signs every file. An auditor who remembers one
publication (``verify --since``) can then refuse any site whose chain does not
hold it where it was: older, forked or shortened.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

__all__ = ["HISTORY_FIELD", "History", "publication_digest", "parse_history", "FIRST"]

HISTORY_FIELD = "history"


def publication_digest(envelope: bytes) -> str:
    """A publication's name in a history: ``sha256:`` and the hex digest of its envelope's bytes."""
    return "sha256:" + hashlib.sha256(envelope).hexdigest()


@dataclass(frozen=True)
class History:
    """Where a publication stands: its sequence number and the digests of the publications before it."""

    sequence: int
    chain: tuple[str, ...]

    @property
    def replaces(self) -> str | None:
        """The digest of the publication this one replaces; ``None`` for a site's first."""
        return self.chain[-1] if self.chain else None

    def following(self, envelope: bytes) -> History:
        """The history of the publication that replaces the one whose envelope is ``envelope``."""
        return History(self.sequence + 1, (*self.chain, publication_digest(envelope)))

    def as_dict(self) -> dict[str, Any]:
        return {"sequence": self.sequence, "replaces": self.replaces, "chain": list(self.chain)}


FIRST = History(1, ())


def parse_history(predicate: dict[str, Any]) -> History | None:
    """The history a signed predicate records, ``None`` when it records none; :class:`ValueError` when malformed."""
    doc = predicate.get(HISTORY_FIELD)
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise ValueError(f"predicate field {HISTORY_FIELD!r} is not a table")
    sequence, chain, replaces = doc.get("sequence"), doc.get("chain"), doc.get("replaces")
    if not isinstance(sequence, int) or isinstance(sequence, bool) or sequence < 1:
        raise ValueError(f"{HISTORY_FIELD}.sequence is not a whole number from 1")
    if not isinstance(chain, list) or not all(isinstance(d, str) and d.startswith("sha256:") for d in chain):
        raise ValueError(f"{HISTORY_FIELD}.chain is not a list of sha256 digests")
    history = History(sequence, tuple(chain))
    if len(chain) != sequence - 1 or replaces != history.replaces:
        raise ValueError(f"{HISTORY_FIELD} is inconsistent: sequence {sequence} needs {sequence - 1} earlier digest(s), the last being 'replaces'")
    return history
