"""Ground truth: when the server sent each event of each request, on its monotonic clock.

One JSON line per request, written when the request ends. ``time.monotonic()`` is the
system-wide ``CLOCK_MONOTONIC`` on Linux, so a client on the same machine can compare its own
monotonic timestamps with these to measure how accurately it timed the stream.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import IO, Any

__all__ = ["GroundTruthLog", "RequestRecord"]


class RequestRecord:
    """The timeline of one request as the server saw it."""

    __slots__ = ("fields", "events")

    def __init__(self, request_id: str, endpoint: str, stream: bool, arrival: float):
        self.fields: dict[str, Any] = {"id": request_id, "endpoint": endpoint, "stream": stream, "arrival": arrival}
        self.events: list[list[Any]] = []

    def sent(self, kind: str, tokens: int = 0) -> None:
        """Note that an event of ``kind`` carrying ``tokens`` output tokens is being sent now."""
        self.events.append([time.monotonic(), kind, tokens])

    def as_dict(self) -> dict[str, Any]:
        return {**self.fields, "events": self.events}


class GroundTruthLog:
    """Appends request records to a JSONL file (or nowhere, when no path is given)."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path else None
        self._file: IO[str] | None = None
        self._lock = threading.Lock()

    def open(self) -> None:
        if self.path is not None and self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")

    def write(self, record: RequestRecord) -> None:
        if self._file is None:
            return
        line = json.dumps(record.as_dict(), sort_keys=True, separators=(",", ":"))
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
