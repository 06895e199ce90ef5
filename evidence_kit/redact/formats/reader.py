"""The reader interface: one object per file format, with its examples."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

__all__ = ["Example", "FormatReader"]


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
