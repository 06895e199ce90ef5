"""inference-perf's per-request lifecycle report (``per_request_lifecycle_metrics.json``).

Written when the config's ``report.request_lifecycle.per_request`` is true: a JSON list, one entry per
request, ``{"start_time", "end_time", "request", "response", "info", "error"}``. Read from its own code
(``reportgen/base.py``'s ``build_per_request_lifecycle_entry`` and ``compute_request_latency_metrics``):
the end-to-end time is ``end_time - start_time``; the time to first token ``output_token_times[0] -
start_time`` (the first streamed chunk, reasoning or content alike); the token counts are the server's
usage (``info.response_metrics.server_usage``), else inference-perf's own counts. Its times are on the
client's monotonic clock.

The entries carry neither inference-perf's version nor their load stage or concurrency: the
concurrency of a file is the most of its requests in flight at once, from their start and end times
(in a ``concurrent`` load, the stage's ``concurrency_level``), and a file must hold one stage.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import BadInput
from .source import ImportedFile, ImportedGroup, ImportedRequest, SourceFile, in_flight, reason, seconds, tokens

__all__ = ["TOOL", "detect", "read"]

TOOL = "inference-perf"
NOT_RECORDED = ["counter-reconciliation", "functional-gates", "lifecycle-checks", "content-ttft", "client-health", "warmup", "engine-identity"]
_ENTRY = {"start_time", "end_time", "info", "error"}


def detect(doc: Any) -> bool:
    """A list of per-request lifecycle entries."""
    return isinstance(doc, list) and bool(doc) and isinstance(doc[0], dict) and _ENTRY <= set(doc[0])


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _entry(entry: Any, i: int, path: Path) -> ImportedRequest:
    where = f"entry {i}"
    if not isinstance(entry, dict) or not _ENTRY <= set(entry):
        raise BadInput(f"inference-perf report: {where} is not a per-request lifecycle entry", path)
    start = seconds(entry["start_time"], f"{where} start_time", path)
    end = seconds(entry["end_time"], f"{where} end_time", path)
    info = _obj(entry["info"])
    response = _obj(info.get("response_metrics"))
    usage = _obj(response.get("server_usage"))
    prompt = tokens(usage.get("prompt_tokens", info.get("input_tokens")), f"{where} prompt tokens", path)
    error = entry["error"]
    if error is not None:
        e = _obj(error)
        text = ": ".join(part for part in (str(e.get("error_type") or ""), reason(e.get("error_msg"))) if part)
        return ImportedRequest(ok=False, error=text or "error (inference-perf recorded no reason)", prompt_tokens=prompt, start_s=start, name=where)
    times = response.get("output_token_times")
    if not isinstance(times, list) or not times:
        raise BadInput(
            f"inference-perf report: {where} has no output_token_times: the run was not streamed "
            "(api.streaming), and an import needs streamed timings",
            path,
        )
    if start is None or end is None:
        raise BadInput(f"inference-perf report: {where} has no start_time or end_time", path)
    first = seconds(times[0], f"{where} output_token_times[0]", path)
    assert first is not None
    completion = usage.get("completion_tokens", response.get("output_tokens"))
    return ImportedRequest(
        ok=True,
        prompt_tokens=prompt,
        completion_tokens=tokens(completion, f"{where} completion tokens", path),
        e2e_s=round(end - start, 9),
        ttft_s=round(first - start, 9),
        start_s=start,
        name=where,
    )


def read(source: SourceFile, doc: list[Any]) -> ImportedFile:
    path = source.path
    requests = [_entry(entry, i, path) for i, entry in enumerate(doc)]
    spans = [(e["start_time"], e["end_time"]) for e in doc]
    if any(not isinstance(t, (int, float)) or isinstance(t, bool) for span in spans for t in span):
        raise BadInput("inference-perf report: an entry's start_time or end_time is not a number", path)
    concurrency = in_flight(spans)
    requests.sort(key=lambda r: r.start_s or 0.0)
    return ImportedFile(
        path=path,
        sha256=source.sha256,
        tool=TOOL,
        version=None,
        format="inference-perf per_request_lifecycle_metrics.json",
        not_recorded=list(NOT_RECORDED),
        groups=[ImportedGroup(concurrency=concurrency, requests=requests, observed=True, where=f"the stage at concurrency {concurrency}")],
        private=_identities(doc[0]),
        started_at=None,
    )


def _identities(entry: dict[str, Any]) -> dict[str, Any]:
    """The model the first request named (its ``request`` is the JSON body sent), for the redactor."""
    try:
        body = json.loads(entry.get("request") or "{}")
    except (TypeError, ValueError):
        return {}
    return {"model": body["model"]} if isinstance(body, dict) and isinstance(body.get("model"), str) else {}
