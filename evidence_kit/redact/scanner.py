"""The known-value scan: every file name and every line of a folder, for the spellings of known values.

It is the second, independent check over everything published (a bundle the redactor wrote, a
built site): the typed writer publishes the contract's fields, pseudonyms in place of identities,
and this scan hunts what it pseudonymised, what it withheld from a ``private`` part and what a
policy declares, in every spelling and reading (:mod:`.rules`). A finding names the kind, the file
and the line, never the value.

Every file is read a batch of lines at a time, each batch in every reading (its escapes undone, its
URL encoding, its entities, ...); only a batch that holds a known value is read again line by line.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..errors import BadInput
from ..one_line import one_line
from .hunt import Hunter, KnownValue
from .policy import Policy

__all__ = ["Finding", "scan_files", "scan_tree", "hunter_for"]

_BATCH = 1 << 20


@dataclass(frozen=True, order=True)
class Finding:
    """Something private found: which file, which line (``None`` for the file name), which kind."""

    file: str
    line: int | None
    cls: str
    source: str = "known"  # "known" (a known value's spelling) or "unscannable" (a symbolic link)

    def __str__(self) -> str:
        if self.source == "unscannable":
            return one_line(f"{self.file}: symbolic link, not followed (publish regular files only)")
        where = f"{self.file}:{self.line}" if self.line is not None else f"{self.file} (file name)"
        return one_line(f"{where}: {self.cls} (a known private value)")


def hunter_for(known_values: Iterable[KnownValue | tuple[str, str]] = (), policy: Policy | None = None) -> Hunter:
    """The hunter of ``known_values`` and the policy's declared values, less the policy's public words."""
    policy = policy or Policy()
    values = [KnownValue(*value) for value in [*policy.known_values(), *known_values]]
    return Hunter(values, public=policy.public)


def _batches(handle: TextIO) -> Iterator[str]:
    """A text file (opened with ``newline=""``) about :data:`_BATCH` characters of whole lines at a time: one
    read and no line objects (a line ends at ``\n``, ``\r`` or ``\r\n``, as the file's own lines do)."""
    carry = ""
    while batch := carry + handle.read(_BATCH):
        carry = ""
        if not batch.endswith(("\n", "\r")):
            batch += handle.readline()  # the rest of the line the read cut
        if batch.endswith("\r"):
            carry = handle.read(1)  # a "\r\n" the read cut between its two characters is one line end
            if carry == "\n":
                batch, carry = batch + carry, ""
        yield batch


class _LineNumbers:
    """How many lines of a file come before a character offset: counted only when a finding names a line, by a
    second reading of the file (the scan itself reads batches, not lines)."""

    def __init__(self, path: Path):
        self.path = path
        self.handle: TextIO | None = None
        self.chars = self.lines = 0

    def before(self, chars: int) -> int:
        if self.handle is None:
            self.handle = self.path.open(encoding="utf-8", errors="replace", newline="")
        while self.chars < chars:  # a batch ends where a line does: the count lands on it
            self.chars += len(self.handle.readline())
            self.lines += 1
        return self.lines

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


def _file_findings(path: Path, rel: str, hunter: Hunter) -> Iterator[Finding]:
    """A file a batch of lines at a time, each batch in every reading; a batch that holds a known value is
    read again line by line, for the lines to name."""
    offset = 0
    numbers = _LineNumbers(path)
    try:
        with path.open(encoding="utf-8", errors="replace", newline="") as handle:
            for batch in _batches(handle):
                if hunter.find(batch) is not None:
                    first = numbers.before(offset) + 1
                    for number, line in enumerate(io.StringIO(batch, newline="").readlines(), start=first):
                        found = hunter.find(line)
                        if found is not None:
                            yield Finding(rel, number, found)
                offset += len(batch)
    finally:
        numbers.close()


def scan_files(root: Path, files: Iterable[str], hunter: Hunter) -> list[Finding]:
    """Scan the named files of ``root`` (relative paths) and their names; sorted findings."""
    findings: set[Finding] = set()
    if not hunter:
        return []
    for rel in files:
        path = root / rel
        named = [hunter.find(part) for part in rel.split("/")]
        if any(named):
            shown = "/".join(f"[{kind}]" if kind else part for part, kind in zip(rel.split("/"), named))
            findings.update(Finding(shown, None, kind) for kind in named if kind)
            rel = shown  # a private file name is never printed
        findings.update(_file_findings(path, rel, hunter))
    return sorted(findings, key=lambda f: (f.file, f.line or 0, f.cls, f.source))


def scan_tree(
    path: Path,
    *,
    known_values: Iterable[KnownValue | tuple[str, str]] = (),
    policy: Policy | None = None,
    skip: Iterable[str] = (),
) -> list[Finding]:
    """Scan a folder (a bundle, a built site, raw evidence) for the known values; empty means clean.

    ``known_values`` are ``(kind, value)`` pairs (a private map's, a raw folder's identities); the
    policy adds its declared values and its public words. Files named in ``skip`` (relative paths:
    exact copies of public third-party files) are not scanned. A symbolic link is a finding of its own.
    """
    root = Path(path)
    if not root.is_dir():
        raise BadInput("not a folder", root)
    skipped = set(skip)
    entries = sorted(root.rglob("*"))
    files = [rel for rel in (p.relative_to(root).as_posix() for p in entries if p.is_file() and not p.is_symlink()) if rel not in skipped]
    links = [rel for rel in (p.relative_to(root).as_posix() for p in entries if p.is_symlink()) if rel not in skipped]
    findings = scan_files(root, files, hunter_for(known_values, policy))
    findings += [Finding(rel, None, "symlink", "unscannable") for rel in links]
    return sorted(set(findings), key=lambda f: (f.file, f.line or 0, f.cls, f.source))
