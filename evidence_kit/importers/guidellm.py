"""GuideLLM ``benchmarks.json`` (the JSON output of ``guidellm run``), format version 2 (GuideLLM 0.8).

One file is one run of ``guidellm run``: a list of benchmarks (a sweep's strategies), each with its
requests split into ``successful``, ``errored`` and ``incomplete``. Each benchmark becomes a group; only
closed-loop strategies have a concurrency (``concurrent``: its streams; ``synchronous``: 1), so a
rate-based benchmark (``constant``, ``poisson``, ``throughput``, …) is refused. Read from GuideLLM's own
code (``schemas/base/request_stats.py``, ``backends/openai/http.py``): ``request_latency`` is
``request_end - request_start``; ``time_to_first_token_ms`` is to the first streamed iteration that
carried a token, reasoning included; ``time_to_first_output_token_ms`` to the first one that carried
content; ``prompt_tokens`` and ``output_tokens`` are the server's usage (output falls back to streamed
iterations). Warmup and cooldown requests are not saved in the file.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from ..errors import BadInput
from .source import ImportedFile, ImportedGroup, ImportedRequest, SourceFile, reason, seconds, tokens

__all__ = ["TOOL", "detect", "read"]

TOOL = "guidellm"
FORMAT_VERSION = 2
NOT_RECORDED = ["counter-reconciliation", "functional-gates", "lifecycle-checks", "client-health", "warmup", "engine-identity"]


def detect(doc: Any) -> bool:
    """A GuideLLM report: ``metadata.guidellm_version`` and a ``benchmarks`` list (or an older report's
    ``benchmarks`` of ``generative_benchmark``\\ s, to refuse it by name)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        return False
    meta = doc.get("metadata")
    return (isinstance(meta, dict) and "guidellm_version" in meta) or any(
        isinstance(b, dict) and str(b.get("type_", "")).startswith("generative_benchmark") for b in doc["benchmarks"]
    )


def read(source: SourceFile, doc: dict[str, Any]) -> ImportedFile:
    path = source.path
    meta = _obj(doc.get("metadata"))
    version = meta.get("guidellm_version")
    if meta.get("version") != FORMAT_VERSION:
        raise BadInput(
            f"GuideLLM report of format version {meta.get('version')!r} (GuideLLM {version or 'older'}); "
            f"evidence-kit reads format version {FORMAT_VERSION} (GuideLLM 0.8): rerun with GuideLLM 0.8",
            path,
        )
    if not doc["benchmarks"]:
        raise BadInput("GuideLLM report with no benchmarks", path)
    groups = [_benchmark(b, i, path) for i, b in enumerate(doc["benchmarks"], start=1)]
    backend = _obj(_obj(_obj(doc.get("config")).get("spec")).get("backend"))
    private = {name: backend[key] for key, name in (("target", "endpoint"), ("model", "model")) if isinstance(backend.get(key), str) and backend[key]}
    start = doc["benchmarks"][0].get("start_time")
    started = None
    if isinstance(start, (int, float)) and not isinstance(start, bool):
        started = dt.datetime.fromtimestamp(start, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return ImportedFile(
        path=path,
        sha256=source.sha256,
        tool=TOOL,
        version=str(version) if version else None,
        format=f"GuideLLM benchmarks report (format version {FORMAT_VERSION})",
        not_recorded=list(NOT_RECORDED),
        groups=groups,
        private=private,
        started_at=started,
    )


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else an empty one (a field the file lacks reads as absent)."""
    return value if isinstance(value, dict) else {}


def _benchmark(bench: Any, index: int, path: Path) -> ImportedGroup:
    where = f"benchmark {index}"
    if not isinstance(bench, dict) or not isinstance(bench.get("requests"), dict):
        raise BadInput(f"GuideLLM report: {where} has no requests", path)
    strategy = _obj(_obj(bench.get("config")).get("strategy"))
    kind = strategy.get("type_")
    if kind == "concurrent":
        concurrency = strategy.get("streams")
    elif kind == "synchronous":
        concurrency = 1
    else:
        raise BadInput(
            f"GuideLLM report: {where} is a {kind!r} benchmark, which has no fixed concurrency; "
            "evidence-kit's groups are concurrency levels: run guidellm with --profile kind=concurrent "
            "(or synchronous)",
            path,
        )
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        raise BadInput(f"GuideLLM report: {where} has streams {concurrency!r}", path)
    where = f"{where} ({kind}, concurrency {concurrency})"
    lists = bench["requests"]
    requests: list[ImportedRequest] = []
    for status in ("successful", "errored", "incomplete"):
        stats = lists.get(status) or []
        if not isinstance(stats, list):
            raise BadInput(f"GuideLLM report: {where} requests.{status} is not a list", path)
        requests += [_request(r, status, f"{where} requests.{status}[{i}]", path) for i, r in enumerate(stats)]
    totals = _obj(_obj(bench.get("metrics")).get("request_totals"))
    for status in ("successful", "errored", "incomplete"):
        held = len(lists.get(status) or [])
        if status in totals and totals[status] != held:
            raise BadInput(
                f"GuideLLM report: {where} counts {totals[status]!r} {status} requests but holds {held}: "
                "it keeps a sample of them (--sample-size), and an import needs every request",
                path,
            )
    if not requests:
        raise BadInput(f"GuideLLM report: {where} holds no requests", path)
    requests.sort(key=lambda r: (r.start_s is None, r.start_s or 0.0))
    return ImportedGroup(concurrency=concurrency, requests=requests, where=where)


def _request(stats: Any, status: str, where: str, path: Path) -> ImportedRequest:
    if not isinstance(stats, dict):
        raise BadInput(f"GuideLLM report: {where} is not an object", path)
    info = _obj(stats.get("info"))
    start = seconds(stats.get("request_start_time"), f"{where}.request_start_time", path)
    prompt = tokens(stats.get("prompt_tokens"), f"{where}.prompt_tokens", path)
    if status != "successful":
        error = info.get("error") if status == "errored" else "incomplete: still running when the benchmark stopped"
        return ImportedRequest(
            ok=False, error=reason(error) or f"{status} (GuideLLM recorded no reason)", prompt_tokens=prompt, start_s=start, name=where
        )
    ttft = seconds(stats.get("time_to_first_token_ms"), f"{where}.time_to_first_token_ms", path, scale=1e-3)
    if ttft is None:
        raise BadInput(
            f"GuideLLM report: {where} has no time_to_first_token_ms: the benchmark was not streamed, and an import needs streamed timings", path
        )
    content = seconds(stats.get("time_to_first_output_token_ms"), f"{where}.time_to_first_output_token_ms", path, scale=1e-3)
    e2e = seconds(stats.get("request_latency"), f"{where}.request_latency", path)
    if e2e is None:
        raise BadInput(f"GuideLLM report: {where} has no request_latency", path)
    return ImportedRequest(
        ok=True,
        prompt_tokens=prompt,
        completion_tokens=tokens(stats.get("output_tokens"), f"{where}.output_tokens", path),
        e2e_s=e2e,
        ttft_s=ttft,
        ttft_content_s=content,
        start_s=start,
        name=where,
    )
