"""Append-only journal writing: validated records, one fsync per committed unit, resumable.

Records are validated against the contract models as they are queued and reach
the file only at :meth:`JournalWriter.commit`, which appends them in one write
and fsyncs. The collector commits after the preamble (header, gates, warmup),
after each run (its requests, then its run record) and after the closing
checks and footer. A journal interrupted anywhere therefore ends, at worst, in
a torn or partial unit; :func:`open_for_resume` cuts it back to the end of the
last complete run, so no request is lost from a finished run or written twice.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..model import Footer, Header, Request, Run
from ..read import parse_record

__all__ = ["JournalWriter", "ResumePoint", "open_for_resume", "encode_record"]


# One encoder for every record: json.dumps with these options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_record(record: dict[str, Any]) -> bytes:
    """One JSONL line, ``type`` first, compact, UTF-8."""
    # (A request record is built with ``type`` first already: not copied again, one per streamed request.)
    ordered = record if next(iter(record), None) == "type" else {"type": record["type"], **{k: v for k, v in record.items() if k != "type"}}
    return _ENCODER.encode(ordered).encode() + b"\n"


class JournalWriter:
    """Queue records, then append them durably with :meth:`commit`."""

    def __init__(self, path: Path, *, requests: int = 0, timed: int = 0, completed: int = 0):
        self.path = path
        self._pending: list[bytes] = []
        self.requests = requests
        self.timed = timed
        self.completed = completed  # timed requests that succeeded (ok): an arm with none did not run

    def add(self, record: dict[str, Any]) -> None:
        """Validate ``record`` against its contract model and queue it."""
        line = encode_record(record)
        parsed = parse_record(line)  # a bug of ours must never reach the evidence
        if isinstance(parsed, Request):
            self._count(parsed, 1)
        self._pending.append(line)

    def _count(self, request: Request, sign: int) -> None:
        self.requests += sign
        self.timed += sign * (not request.warmup)
        self.completed += sign * (not request.warmup and request.ok)

    def commit(self) -> None:
        """Append every queued record in one write, flush and fsync."""
        if not self._pending:
            return
        data = b"".join(self._pending)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        self._pending.clear()

    def discard(self) -> None:
        """Drop queued records (an interrupted run is redone, never half-kept)."""
        for line in self._pending:
            parsed = parse_record(line)
            if isinstance(parsed, Request):
                self._count(parsed, -1)
        self._pending.clear()

    def footer(self, ended_at: str, **extra: Any) -> None:
        """Queue the footer, counting every request this journal holds."""
        self.add({"type": "footer", "ended_at": ended_at, "requests": self.requests, "timed_requests": self.timed, **extra})


@dataclass
class ResumePoint:
    """What an existing journal already holds, cut back to its last complete unit."""

    header: Header | None = None
    finished: bool = False
    done_runs: set[str] = field(default_factory=set)
    requests: int = 0
    timed: int = 0
    completed: int = 0
    dropped_bytes: int = 0
    records: list[Any] = field(default_factory=list)


def open_for_resume(path: Path) -> ResumePoint:
    """Read ``path``, truncate it after its last complete run (or footer), and say what it holds.

    A journal without any complete run is removed: its arm starts again from
    the header. A torn last line (no newline) is always dropped; a malformed
    line anywhere before the cut point is a :class:`BadInput`.
    """
    point = ResumePoint()
    if not path.exists():
        return point
    data = path.read_bytes()
    keep = 0
    offset = 0
    requests = timed = completed = 0
    parsed: list[Any] = []
    for raw in data.splitlines(keepends=True):
        start, offset = offset, offset + len(raw)
        if not raw.endswith(b"\n"):
            break  # torn: the writer was killed mid-write
        try:
            record = parse_record(raw)
        except BadInput as err:
            if offset == len(data):
                break  # a damaged last line is a torn write too
            raise err.located(path, data.count(b"\n", 0, start) + 1) from None
        parsed.append(record)
        if isinstance(record, Request):
            requests += 1
            timed += int(not record.warmup)
            completed += int(not record.warmup and record.ok)
        if isinstance(record, (Run, Footer)):
            keep = offset
            point.records = list(parsed)
            point.requests, point.timed, point.completed = requests, timed, completed
            point.done_runs = {r.run for r in point.records if isinstance(r, Run)}
            point.finished = isinstance(record, Footer)
    if keep == 0:
        point.dropped_bytes = len(data)
        path.unlink()
        return point
    point.header = point.records[0] if isinstance(point.records[0], Header) else None
    if point.header is None:
        raise BadInput("journal does not start with a header; cannot resume it", path, 1)
    point.dropped_bytes = len(data) - keep
    if point.dropped_bytes:
        with path.open("r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
    return point
