"""What an importer reads out of another client's result file, before it becomes a journal.

Every importer turns one file into an :class:`ImportedFile`: its groups (one per concurrency level the
tool ran), each a list of :class:`ImportedRequest` holding only what the tool recorded (``None`` where it
recorded nothing), the tool's name and version, and the identifying values the file carries (model,
endpoint, tokenizer path), which go into the journal header's ``private`` part for the redactor.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..read.files import read_bytes

__all__ = ["ImportedRequest", "ImportedGroup", "ImportedFile", "SourceFile", "read_source", "parse_json", "reason", "in_flight", "seconds", "tokens"]


@dataclass
class ImportedRequest:
    """One request as the tool recorded it; every field it did not record is None."""

    ok: bool
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    e2e_s: float | None = None
    ttft_s: float | None = None
    ttft_content_s: float | None = None
    start_s: float | None = None  # when it was sent, on the tool's own clock (seconds; any origin)
    itl_us: list[int] | None = None
    warmup: bool = False
    line: int | None = None  # where the file holds it, for a refusal: its line (JSONL) ...
    name: str | None = None  # ... or how the file names it ("entry 3")


@dataclass
class ImportedGroup:
    """One concurrency level of one file: a run of the imported trial."""

    concurrency: int
    requests: list[ImportedRequest]
    where: str  # how the file names it, for messages: "benchmark 2 (concurrent, 4 streams)"
    observed: bool = False  # the file does not record its concurrency: this is the most in flight at once


@dataclass
class ImportedFile:
    """One result file, read."""

    path: Path
    sha256: str
    tool: str
    version: str | None
    format: str
    not_recorded: list[str]
    groups: list[ImportedGroup]
    private: dict[str, Any] = field(default_factory=dict)
    started_at: str | None = None
    engine: dict[str, Any] | None = None  # the journal header's public ``engine`` fields the tool recorded (KV capacity)
    # A repetition combined from files of one level each (AIPerf runs at different concurrencies): those
    # files, each holding its one group, in the order of ``groups``; empty for a file read as it is.
    parts: list[ImportedFile] = field(default_factory=list)

    def sources(self) -> list[ImportedFile]:
        """The files read: the parts of a combined repetition, else this file."""
        return self.parts or [self]

    def source_of(self, index: int) -> ImportedFile:
        """The file that holds group ``index``."""
        return self.parts[index] if self.parts else self


@dataclass
class SourceFile:
    """A result file's bytes, text and parsed JSON (a document, or the lines of a JSONL file)."""

    path: Path
    data: bytes
    sha256: str
    text: str


def read_source(path: Path) -> SourceFile:
    """Read ``path`` whole: a :class:`BadInput` naming it when it cannot be read or is not UTF-8."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise BadInput(f"not UTF-8 text (byte {err.start}): not a result file of a known client", path, line) from None
    if not text.strip():
        raise BadInput("empty file: not a result file of a known client", path)
    return SourceFile(path=path, data=data, sha256=hashlib.sha256(data).hexdigest(), text=text)


def parse_json(source: SourceFile, text: str | None = None, first_line: int = 1) -> Any:
    """One JSON document, or a :class:`BadInput` at its line ("truncated" when it ends too early)."""
    text = source.text if text is None else text
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        # The parser reached the end inside a value (an unterminated string runs to the end: a newline
        # inside one is another error, "Invalid control character").
        ended = err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string")
        what = "truncated JSON (the file ends inside a value)" if ended else f"not valid JSON ({err.msg})"
        raise BadInput(what, source.path, first_line + err.lineno - 1) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", source.path) from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise BadInput(f"not valid JSON ({err})", source.path) from None


def reason(error: object) -> str:
    """A failure's reason on one line: the last line of the tool's error text (a traceback's frames name the
    client's own file paths; its last line is the exception), at most 500 characters; '' for none."""
    if not isinstance(error, str):
        return ""
    lines = [line.strip() for line in error.strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else ""


def in_flight(spans: list[tuple[Any, Any]]) -> int:
    """The most (start, end) spans open at once; an end and a start at one instant do not overlap. The
    concurrency of a closed loop whose file does not record it: a request is sent only when one ends."""
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda ev: (ev[0], ev[1]))
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def seconds(value: Any, what: str, path: Path, *, scale: float = 1.0) -> float | None:
    """A non-negative finite time in seconds (``value`` times ``scale``), None for a missing one."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0 or value == float("inf"):
        raise BadInput(f"{what} is {value!r}, not a time", path)
    return round(float(value) * scale, 9)


def tokens(value: Any, what: str, path: Path) -> int | None:
    """A non-negative whole token count, None for a missing one."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
        raise BadInput(f"{what} is {value!r}, not a token count", path)
    return int(value)
