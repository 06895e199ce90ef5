"""Stream a native journal in constant memory, checking the contract as it goes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import BadInput
from ..model import JOURNAL_RECORD, Footer, Header, Request, Run
from ..model.journal import HEALTH_TOLERANCE_S
from .validation import describe_validation_error

__all__ = ["JournalReader", "parse_record"]


def _require_utf8(raw: bytes) -> None:
    """A line that is not UTF-8 is named as such (the JSON parser would call it an invalid code point)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadInput(f"not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1})") from None


_BUFFER = 1 << 20  # read a journal a megabyte at a time
# The compiled validator itself: the adapter's wrapper costs a Python call per line of a journal.
_VALIDATE_JSON = JOURNAL_RECORD.validator.validate_json


def parse_record(raw: bytes) -> Any:
    """Validate one JSONL line into its record model; raise :class:`BadInput` without location."""
    try:
        return _VALIDATE_JSON(raw)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        if first["type"] == "json_invalid":
            _require_utf8(raw)
            raise BadInput(f"not valid JSON ({first.get('ctx', {}).get('error', first['msg'])})") from None
        if first["type"] in ("model_attributes_type", "model_type", "dict_type") or (
            first["type"] == "union_tag_not_found" and not raw.lstrip().startswith(b"{")
        ):
            raise BadInput("a journal line must be a JSON object") from None
        text, _ = describe_validation_error(err, strip_tag=True)
        raise BadInput(text) from None


class JournalReader:
    """Iterate ``(line_number, record)`` over a journal, enforcing its structure.

    Checks, each reported with file and line: valid JSON on every line, a known
    record type with fields of the right types, the header first and only once,
    nothing after the footer, run records that count exactly the timed requests
    of their run, timed requests no more on the wire at once than their run's concurrency, a run's
    client health whose wall time holds its requests, and footer counts equal to what the journal holds. With
    ``require_footer`` a journal that ends without a footer is an error.

    After iteration, ``sha256`` (``""`` when not ``hashed``), ``size``, ``header`` and ``footer`` are set.
    """

    def __init__(self, path: str | Path, *, require_footer: bool = True, hashed: bool = True):
        self.path = Path(path)
        self.require_footer = require_footer
        self.hashed = hashed
        self.sha256 = ""
        self.size = 0
        self.header: Header | None = None
        self.footer: Footer | None = None
        self.lines = 0

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        digest = hashlib.sha256() if self.hashed else _Unhashed()
        size = 0
        requests = 0
        timed = 0
        open_runs: dict[str, list[int]] = {}  # run -> [timed requests, ok ones] so far
        spans: dict[str, _Span] = {}
        starts: dict[str, list[tuple[int, float]]] = {}  # open-loop run -> (line, t_send_s - scheduled_s - send_wait_s)
        closed_runs: set[str] = set()
        line_no = 0
        try:
            handle = self.path.open("rb", buffering=_BUFFER)
        except OSError as err:
            raise BadInput(f"cannot read journal ({err.strerror})", self.path) from None
        with handle:
            for raw in handle:
                line_no += 1
                digest.update(raw)
                size += len(raw)
                if raw.isspace():  # a line read is never empty: at least its newline
                    raise BadInput("empty line in journal", self.path, line_no)
                try:
                    record = parse_record(raw)
                except BadInput as err:
                    if not raw.endswith(b"\n"):
                        err.message = f"torn last line (no newline at end; the writer was interrupted?): {err.message}"
                    raise err.located(self.path, line_no) from None
                self._check_order(record, line_no)
                if type(record) is Request:
                    requests += 1
                    if not record.warmup:
                        timed += 1
                        run = record.run
                        counts = open_runs.get(run)
                        if counts is None:  # the run's first timed request (a run closed before has none open)
                            if run in closed_runs:
                                raise BadInput(f"request of run {run!r} after that run's record", self.path, line_no)
                            counts = open_runs[run] = [0, 0]
                        counts[0] += 1
                        counts[1] += record.ok
                        if record.t_send_s is not None:
                            _sent(record, line_no, spans, starts)
                elif isinstance(record, Run):
                    self._close_run(record, open_runs.pop(record.run, [0, 0]), closed_runs, line_no)
                    self._check_span(record, spans.pop(record.run, None), line_no)
                    self._check_lags(record, starts.pop(record.run, []))
                elif isinstance(record, Footer):
                    self._check_footer(record, requests, timed, line_no)
                yield line_no, record
        self.lines = line_no
        self.sha256 = digest.hexdigest()
        self.size = size
        if line_no == 0:
            raise BadInput("empty journal (no header)", self.path)
        if self.footer is None and self.require_footer:
            raise BadInput(
                "journal has no footer (the arm did not finish; 'collect --resume' continues it)",
                self.path,
                line_no,
            )

    def _check_footer(self, footer: Footer, requests: int, timed: int, line_no: int) -> None:
        if footer.requests != requests or footer.timed_requests != timed:
            raise BadInput(
                f"footer counts {footer.requests} requests / {footer.timed_requests} timed, but the journal holds {requests} / {timed}",
                self.path,
                line_no,
            )

    def _check_order(self, record: Any, line_no: int) -> None:
        if self.footer is not None:
            raise BadInput("record after the footer", self.path, line_no)
        if line_no == 1:
            if not isinstance(record, Header):
                raise BadInput(f"first line must be the header, found a {record.type!r} record", self.path, line_no)
            self.header = record
        elif isinstance(record, Header):
            raise BadInput("a second header", self.path, line_no)
        if isinstance(record, Footer):
            self.footer = record

    def _check_span(self, run: Run, span: _Span | None, line_no: int) -> None:
        if span is None:
            return
        wall = span.last_end - span.first_send
        # At most `concurrency` requests are on the wire at once, so their send -> end times add up to at
        # most that many times the span (each rounded to the microsecond: a microsecond or two each).
        # (An open-loop run has no concurrency to bound it: its requests start on a schedule.)
        if run.concurrency is not None and span.busy > run.concurrency * wall + HEALTH_TOLERANCE_S + span.count * 2e-6:
            raise BadInput(
                f"run {run.run!r} at concurrency {run.concurrency} has timed requests whose send -> end "
                f"times add up to {span.busy:.6g} s in a span of {wall:.6g} s (first send to last end): "
                f"more than {run.concurrency} on the wire at once",
                self.path,
                line_no,
            )
        if run.client is not None and wall > run.client.wall_s + HEALTH_TOLERANCE_S:
            raise BadInput(
                f"run {run.run!r} client wall_s {run.client.wall_s!r} is shorter than its timed requests "
                f"span ({wall:.6g} s from the first send to the last end)",
                self.path,
                line_no,
            )

    def _check_lags(self, run: Run, starts: list[tuple[int, float]]) -> None:
        """Each open-loop request's send lag is its send time less its due time (``t_start_s + scheduled_s``): a
        lag that is not was not measured from the schedule the run claims (three roundings to the microsecond
        apart, and float error: 5 µs is the margin)."""
        if run.t_start_s is None:
            return
        for line_no, start in starts:
            if abs(start - run.t_start_s) > 5e-6:
                raise BadInput(
                    f"request of open-loop run {run.run!r}: t_send_s - scheduled_s - send_wait_s is "
                    f"{start:.6f} s, not the run's t_start_s {run.t_start_s!r}: its send lag is not its send "
                    "time less its due time",
                    self.path,
                    line_no,
                )

    def _close_run(self, run: Run, counts: list[int], closed: set[str], line_no: int) -> None:
        if run.run in closed:
            raise BadInput(f"run {run.run!r} is recorded twice", self.path, line_no)
        closed.add(run.run)
        held, ok = counts
        if run.requests != held or run.ok != ok:
            raise BadInput(
                f"run {run.run!r} counts {run.requests} requests / {run.ok} ok, but the journal holds {held} / {ok} for it",
                self.path,
                line_no,
            )


def _sent(request: Request, line_no: int, spans: dict[str, _Span], starts: dict[str, list[tuple[int, float]]]) -> None:
    """A timed request with its send time: into its run's span and, on a schedule, its run's send lags."""
    t_send = request.t_send_s
    assert t_send is not None
    if request.e2e_s is not None:
        spans.setdefault(request.run, _Span()).add(t_send, request.e2e_s)
    if request.scheduled_s is not None and request.send_wait_s is not None:
        # An open-loop request's lag is its send less its due time: all three on one clock.
        starts.setdefault(request.run, []).append((line_no, t_send - request.scheduled_s - request.send_wait_s))


class _Unhashed:
    """A digest that takes the lines and computes nothing: a reader whose caller needs no sha256."""

    def update(self, data: bytes) -> None:
        pass

    def hexdigest(self) -> str:
        return ""


class _Span:
    """The timed requests of one run that carry a send time and an end: first send, last end, their sum."""

    def __init__(self) -> None:
        self.first_send, self.last_end, self.busy, self.count = float("inf"), float("-inf"), 0.0, 0

    def add(self, t_send_s: float, e2e_s: float) -> None:
        self.first_send = min(self.first_send, t_send_s)
        self.last_end = max(self.last_end, t_send_s + e2e_s)
        self.busy += e2e_s
        self.count += 1
