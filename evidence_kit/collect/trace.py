"""Trace replay: a request trace in the public Mooncake layout, read and checked line by line.

One JSON object per line: ``timestamp`` (the request's arrival, milliseconds, never decreasing),
``input_length`` and ``output_length`` (tokens, whole numbers of at least 1), and optionally
``hash_ids`` (the prompt's prefix blocks, whole numbers of at least 0). A trace is private evidence:
it may carry production shapes, so it never enters the bundle; its sha256 goes into each journal
header's ``private`` fields (dropped on redaction), and what the bundle shows of it is what every
trial shows: each request's prompt tokens, its scheduled offset and its timings.

Replayed open loop (:mod:`.arrivals`): request ``i`` is due ``(timestamp_i - timestamp_0) / 1000 x
trace_time_scale`` seconds after the run starts (``trace_time_scale = 0.5`` replays it twice as fast),
prompted with about ``input_length`` tokens and capped at ``output_length`` (``ignore_eos`` in
``extra_body`` makes the engine produce exactly that many where it supports it). ``hash_ids`` are
read and checked, not used: every prompt is unique (shared-prefix prompts are another workload).
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..read.files import read_bytes

__all__ = ["Trace", "TraceRequest", "read_trace", "MAX_TRACE_LINES"]

MAX_TRACE_LINES = 1_000_000  # one run holds every line: beyond this a trace is a mistake, not a run


@dataclass(frozen=True)
class TraceRequest:
    """One line of a trace."""

    timestamp_ms: float
    input_length: int
    output_length: int
    hash_ids: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Trace:
    """A checked trace, its lines in order, and its sha256 (of the file's bytes)."""

    requests: tuple[TraceRequest, ...]
    sha256: str

    def offsets(self, time_scale: float = 1.0) -> list[float]:
        """Each request's due time after the first's, seconds, scaled."""
        first = self.requests[0].timestamp_ms
        return [(r.timestamp_ms - first) / 1000 * time_scale for r in self.requests]

    def rate(self, time_scale: float = 1.0) -> float:
        """Its arrival rate replayed at ``time_scale``: (n - 1) / the scaled span, to 4 significant digits (the
        group's label and key; the schedule itself is the trace's)."""
        span = self.offsets(time_scale)[-1]
        return float(f"{(len(self.requests) - 1) / span:.4g}")

    def input_nominal(self) -> int:
        """The median input length, the group's nominal input size."""
        return round(statistics.median(r.input_length for r in self.requests))


def _count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} is {json.dumps(value)[:40]}, not a whole number of at least {least}")
    return value


def _line(data: Any) -> TraceRequest:
    if not isinstance(data, dict):
        raise ValueError("a trace line is a JSON object (timestamp, input_length, output_length, hash_ids)")
    missing = [k for k in ("timestamp", "input_length", "output_length") if k not in data]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    unknown = sorted(set(data) - {"timestamp", "input_length", "output_length", "hash_ids"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (the Mooncake layout: timestamp, input_length, output_length, hash_ids)")
    ts = data["timestamp"]
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not math.isfinite(ts) or ts < 0:
        raise ValueError(f"timestamp is {json.dumps(ts)[:40]}, not milliseconds of at least 0")
    hash_ids = data.get("hash_ids")
    if hash_ids is not None:
        if not isinstance(hash_ids, list):
            raise ValueError("hash_ids is not a list of prefix block ids")
        hash_ids = tuple(_count(h, "a hash_ids entry", 0) for h in hash_ids)
    return TraceRequest(float(ts), _count(data["input_length"], "input_length", 1), _count(data["output_length"], "output_length", 1), hash_ids)


def read_trace(path: Path) -> Trace:
    """Read and check a trace; a :class:`BadInput` naming the file and line of the first fault (exit 2)."""
    raw = read_bytes(path)
    requests: list[TraceRequest] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue  # a blank line (the last newline's, say) is no request
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise BadInput(f"not UTF-8 text (byte {err.start} of the line)", path, number) from None
        try:
            request = _line(json.loads(text))
        except (ValueError, RecursionError) as err:
            message = f"not JSON ({err.msg})" if isinstance(err, json.JSONDecodeError) else str(err) or "not JSON"
            raise BadInput(message, path, number) from None
        if requests and request.timestamp_ms < requests[-1].timestamp_ms:
            raise BadInput(
                f"timestamp {request.timestamp_ms:g} is before the line above's {requests[-1].timestamp_ms:g}: a trace lists its arrivals in order",
                path,
                number,
            )
        requests.append(request)
        if len(requests) > MAX_TRACE_LINES:
            raise BadInput(f"more than {MAX_TRACE_LINES:,} requests: one run replays the whole trace", path, number)
    if len(requests) < 2:
        raise BadInput(f"a trace holds at least 2 requests (it holds {len(requests)}): one has no arrival rate", path)
    if requests[-1].timestamp_ms == requests[0].timestamp_ms:
        raise BadInput("every request arrives at the same timestamp: the trace spans no time to replay", path)
    return Trace(tuple(requests), hashlib.sha256(raw).hexdigest())
