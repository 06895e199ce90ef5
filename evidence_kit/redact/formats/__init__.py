"""Readers of raw free-text evidence, one per file format.

A reader turns one raw file (a vLLM startup log, ``nvidia-smi`` output, a Prometheus scrape, a
pod's description) into one typed record whose fields declare their publication class
(``evidence_kit.model.publication``). The redactor publishes that record, never the text: the raw
file itself stays private and the bundle lists it by name, size and sha256 only. A file that no
reader recognises is withheld whole.

A reader never fails on content: a raw log may be cut short or hold lines of any kind, so a fact
it cannot find is ``None``. Text that is not UTF-8 is refused before any reader sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

__all__ = ["READERS", "Example", "FormatReader", "reader_for"]


@dataclass(frozen=True)
class Example:
    """One example of a reader: raw text, and fields its record must hold (a subset of its dump)."""

    text: str
    expect: dict[str, Any]
    path: str = "logs/example.log"


@dataclass(frozen=True)
class FormatReader:
    """One file format: how to recognise it, how to read it, and examples that are its tests."""

    name: str  # e.g. "vllm-startup-log"; the published record's file is named after it
    summary: str  # one line for docs/redaction.md's generated reference
    record: type[BaseModel]  # the model it produces; every field declares its publication class
    recognises: Callable[[str, str], bool]  # (path relative to the trial, the file's first 64 KiB) -> bool
    read: Callable[[Iterable[str], str], BaseModel]  # (the file's lines, its path) -> the record
    examples: tuple[Example, ...] = field(default=())


# In order of precedence: the first reader that recognises a file reads it.
READERS: tuple[FormatReader, ...] = ()


def reader_for(path: str, head: str) -> FormatReader | None:
    """The reader of a file (its path relative to the trial, its first 64 KiB), or ``None``."""
    return next((reader for reader in READERS if reader.recognises(path, head)), None)
