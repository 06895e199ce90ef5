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
from . import aiperf_server
from .source import ImportedFile, ImportedGroup, ImportedRequest, SourceFile, in_flight, parse_json, read_source, reason, seconds, tokens

__all__ = ["TOOL", "detect", "read", "read_folder"]

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


def read_folder(folder: Path) -> ImportedFile:
    """An AIPerf artifact folder (``--artifact-dir``), each file told by its content: the records
    (required), the summary (AIPerf's version and the ``--concurrency`` set, in place of the most seen in
    flight) and the server metrics (the KV capacity)."""
    found = _folder_files(folder)
    if "records" not in found:
        raise BadInput("an AIPerf artifact folder without its records (profile_export.jsonl): run aiperf profile with --export-level records", folder)
    source, _ = found["records"]
    imported = read(source, [(n, text) for n, text in enumerate(source.text.splitlines(), start=1) if text.strip()])
    if "summary" in found:
        _apply_summary(imported, *found["summary"])
    if "server" in found:
        server_source, doc = found["server"]
        _apply_server(imported, aiperf_server.read_server_metrics(doc, server_source.path))
    names = {"summary": "profile_export_aiperf.json", "server": "server_metrics_export.json"}
    imported.format = "AIPerf artifact folder (" + ", ".join(["profile_export.jsonl", *(names[k] for k in names if k in found)]) + ")"
    group = imported.groups[0]
    group.where = f"the profile at concurrency {group.concurrency}"
    return imported


def _folder_files(folder: Path) -> dict[str, tuple[SourceFile, Any]]:
    """The folder's records, summary and server metrics, by their content (the first of each kind)."""
    found: dict[str, tuple[SourceFile, Any]] = {}
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".json", ".jsonl")):
        source = read_source(path)
        if path.suffix == ".jsonl":
            first = source.text.lstrip().split("\n", 1)[0]
            if _one_record(first):
                found.setdefault("records", (source, None))
            continue
        doc = parse_json(source)
        if aiperf_server.detect(doc):
            found.setdefault("server", (source, doc))
        elif isinstance(doc, dict) and "aiperf_version" in doc and "input_config" in doc:
            found.setdefault("summary", (source, doc))
    return found


def _one_record(line: str) -> bool:
    try:
        return detect(json.loads(line))
    except ValueError:
        return False


def _apply_summary(imported: ImportedFile, source: SourceFile, doc: dict[str, Any]) -> None:
    version = doc.get("aiperf_version")
    if isinstance(version, str) and version:
        imported.version = version
    phases = (doc.get("input_config") or {}).get("phases") if isinstance(doc.get("input_config"), dict) else None
    profiling = next((p for p in phases or [] if isinstance(p, dict) and p.get("kind") == "profiling"), None)
    setting = profiling.get("concurrency") if profiling else None
    if isinstance(setting, int) and not isinstance(setting, bool) and setting >= 1:
        group = imported.groups[0]
        if group.concurrency > setting:
            raise BadInput(
                f"AIPerf records had {group.concurrency} requests in flight at once, more than the summary's concurrency {setting}", source.path
            )
        group.concurrency, group.observed = setting, False


def _apply_server(imported: ImportedFile, metrics: aiperf_server.ServerMetrics) -> None:
    if metrics.kv_token_slots is not None:
        imported.engine = {"kv_token_slots": metrics.kv_token_slots, **({"cache": metrics.cache} if metrics.cache else {})}
        imported.not_recorded = ["engine-version" if item == "engine-identity" else item for item in imported.not_recorded]
    # The counters' totals are bounded by scrapes the export does not time (aiperf_server.py): not the timed
    # requests' window, so not reconciled; the page says why.
    imported.not_recorded = ["counter-window" if item == "counter-reconciliation" else item for item in imported.not_recorded]
