"""AIPerf ``profile_export.jsonl``: one record per request (``aiperf profile --export-level records``).

Each line is ``{"metadata": …, "metrics": {name: {"value", "unit"}}, "error": …}`` (AIPerf's
``MetricRecordInfo``). AIPerf marks warmup requests (``metadata.benchmark_phase`` ``warmup``), so
they are kept as warmup. Read from AIPerf's own code (``aiperf/metrics/types/``): ``request_latency`` is
request start to the last response; ``time_to_first_token`` to the first token, reasoning included;
``time_to_first_output_token`` to the first non-reasoning token. Token counts are the server's usage
(``usage_prompt_tokens``, ``usage_completion_tokens``), as the journal contract defines them, not AIPerf's
own tokenizer counts (``input_sequence_length``, ``output_sequence_length``).

The records carry neither AIPerf's version nor its ``--concurrency``. The concurrency of a file is
the most of its profiling requests in flight at once, from their start and end times: in AIPerf's
concurrency mode that is the setting (a request is sent only when one ends).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from ..errors import BadInput
from .source import ImportedFile, ImportedGroup, ImportedRequest, SourceFile, in_flight, reason, seconds, tokens

__all__ = ["TOOL", "detect", "read"]

TOOL = "aiperf"
NOT_RECORDED = ["counter-reconciliation", "functional-gates", "lifecycle-checks", "client-health", "engine-identity"]


def detect(first: Any) -> bool:
    """An AIPerf record: an object with ``metadata`` (holding ``benchmark_phase``) and ``metrics``."""
    return (
        isinstance(first, dict)
        and isinstance(first.get("metadata"), dict)
        and "benchmark_phase" in first["metadata"]
        and isinstance(first.get("metrics"), dict)
    )


def _metric(metrics: dict[str, Any], name: str, where: str, path: Path) -> Any:
    """A metric's value in its unit's base (ms -> s; tokens as they are), None when the record lacks it."""
    entry = metrics.get(name)
    if entry is None:
        return None
    if not isinstance(entry, dict) or "value" not in entry:
        raise BadInput(f"AIPerf record: {where} {name} is not a {{value, unit}} object", path)
    unit, value = entry.get("unit"), entry["value"]
    if unit == "ms":
        if isinstance(value, list):
            return [seconds(v, f"{where} {name}", path, scale=1e-3) for v in value]
        return seconds(value, f"{where} {name}", path, scale=1e-3)
    if unit == "tokens":
        return tokens(value, f"{where} {name}", path)
    raise BadInput(f"AIPerf record: {where} {name} has unit {unit!r}; evidence-kit reads ms and tokens", path)


def _record(rec: Any, line: int, path: Path) -> ImportedRequest:
    where = f"line {line}"
    if not detect(rec):
        raise BadInput("not an AIPerf record (no metadata.benchmark_phase and metrics)", path, line)
    meta, metrics = rec["metadata"], rec["metrics"]
    start_ns = meta.get("request_start_ns")
    start = seconds(start_ns, f"{where} request_start_ns", path, scale=1e-9)
    warmup = meta.get("benchmark_phase") == "warmup"
    prompt = _metric(metrics, "usage_prompt_tokens", where, path)
    error = rec.get("error")
    if error is not None or meta.get("was_cancelled"):
        # The error's type (the HTTP status phrase, or the client exception's class), not its message: the
        # server's message can name the model ("The model `org/name` does not exist"), and the records name
        # no model the redactor could pseudonymise.
        why = reason(error.get("type")) if isinstance(error, dict) else ""
        code = error.get("code") if isinstance(error, dict) else None
        text = (f"HTTP {code}: " if code else "") + (why or ("cancelled" if meta.get("was_cancelled") else "error"))
        return ImportedRequest(ok=False, error=text, prompt_tokens=prompt, start_s=start, warmup=warmup)
    ttft = _metric(metrics, "time_to_first_token", where, path)
    if ttft is None:
        raise BadInput(
            "AIPerf record without time_to_first_token: the profile was not streamed (--streaming), and an import needs streamed timings", path, line
        )
    e2e = _metric(metrics, "request_latency", where, path)
    if e2e is None:
        raise BadInput("AIPerf record without request_latency", path, line)
    gaps = _metric(metrics, "inter_chunk_latency", where, path)
    return ImportedRequest(
        ok=True,
        prompt_tokens=prompt,
        completion_tokens=_metric(metrics, "usage_completion_tokens", where, path),
        e2e_s=e2e,
        ttft_s=ttft,
        ttft_content_s=_metric(metrics, "time_to_first_output_token", where, path),
        start_s=start,
        warmup=warmup,
        itl_us=[round(g * 1e6) for g in gaps] if isinstance(gaps, list) and None not in gaps else None,
    )


def read(source: SourceFile, lines: list[tuple[int, str]]) -> ImportedFile:
    path = source.path
    requests, spans = [], []
    for line, text in lines:
        try:
            rec = json.loads(text)
        except ValueError:
            raise BadInput("truncated or invalid JSON record", path, line) from None
        requests.append(_record(rec, line, path))
        requests[-1].line = line
        meta = rec["metadata"]
        start, end = meta.get("request_start_ns"), meta.get("request_end_ns")
        if meta.get("benchmark_phase") != "warmup" and isinstance(start, int) and isinstance(end, int):
            spans.append((start, end))
    timed = [r for r in requests if not r.warmup]
    if not timed:
        raise BadInput("AIPerf records with no profiling request", path)
    if len(spans) != len(timed):
        raise BadInput("AIPerf records: a profiling request lacks request_start_ns or request_end_ns", path)
    concurrency = in_flight(spans)
    requests.sort(key=lambda r: (not r.warmup, r.start_s is None, r.start_s or 0.0))
    starts = [r.start_s for r in requests if r.start_s is not None]
    started = dt.datetime.fromtimestamp(min(starts), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if starts else None
    return ImportedFile(
        path=path,
        sha256=source.sha256,
        tool=TOOL,
        version=None,
        format="AIPerf profile_export.jsonl (per-request records)",
        not_recorded=list(NOT_RECORDED),
        groups=[ImportedGroup(concurrency=concurrency, requests=requests, observed=True, where=f"the profile at concurrency {concurrency}")],
        private={},
        started_at=started,
    )
