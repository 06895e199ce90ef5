"""``vllm bench serve`` result files saved with ``--save-result --save-detailed``.

One file is one benchmark: ``num_prompts`` requests at ``max_concurrency`` (all at once when it is
unset), each with its per-request arrays (``ttfts``, ``latencies``, ``itls``, ``input_lens``,
``output_lens``, ``start_times``, ``errors``). Read from vLLM's own code (``vllm/benchmarks/serve.py``,
``benchmarks/lib/endpoint_request_func.py``): a request succeeded when its ``errors`` entry is empty;
a failed one keeps placeholder zeros in ``ttfts``, ``latencies`` and ``output_lens``, which are not
measurements and are left out here; ``latencies`` end at the last streamed token chunk; ``ttfts`` at
the first chunk that carried choices (reasoning or content: vLLM does not tell them apart); its
``queue_times`` are the wait for its concurrency semaphore (the closed loop's queue, not client
saturation), so they are not mapped to ``send_wait_s``. The file records no vLLM version and no warmup
requests (``--num-warmups`` are run and dropped).
"""

from __future__ import annotations

from typing import Any

from ..errors import BadInput
from .source import ImportedFile, ImportedGroup, ImportedRequest, SourceFile, reason, seconds, tokens

__all__ = ["TOOL", "detect", "read"]

TOOL = "vllm-bench-serve"
# What every saved result holds, detailed or not (serve.py's result_json).
_SIGNATURE = {"date", "backend", "model_id", "num_prompts", "completed", "duration", "request_throughput"}
# What --save-detailed adds and an import needs.
_DETAIL = ("ttfts", "latencies", "input_lens", "output_lens", "errors")
NOT_RECORDED = ["counter-reconciliation", "functional-gates", "lifecycle-checks", "content-ttft", "client-health", "warmup", "engine-identity"]


def detect(doc: Any) -> bool:
    """A ``vllm bench serve`` result: a JSON object with the keys every saved result has."""
    return isinstance(doc, dict) and _SIGNATURE <= set(doc)


def read(source: SourceFile, doc: dict[str, Any]) -> ImportedFile:
    """The file's one benchmark as one group."""
    path = source.path
    missing = [key for key in _DETAIL if key not in doc]
    if missing:
        raise BadInput(
            f"vllm bench serve result without per-request detail (no {', '.join(missing)}): it was saved "
            "without --save-detailed; rerun with --save-result --save-detailed",
            path,
        )
    n = len(doc["errors"]) if isinstance(doc["errors"], list) else -1
    arrays = [key for key in (*_DETAIL, "itls", "start_times") if key in doc]
    for key in arrays:
        if not isinstance(doc[key], list) or len(doc[key]) != n:
            raise BadInput(f"vllm bench serve result: {key} does not hold one entry per request ({n} errors)", path)
    if n == 0:
        raise BadInput("vllm bench serve result with no requests", path)
    requests = []
    for i in range(n):
        error = doc["errors"][i]
        if not isinstance(error, str):
            raise BadInput(f"vllm bench serve result: errors[{i}] is {error!r}, not text", path)
        if error:
            # A failed request's ttft, latency and output length are placeholder zeros, not measurements.
            requests.append(
                ImportedRequest(
                    ok=False,
                    error=reason(error),
                    prompt_tokens=tokens(doc["input_lens"][i], f"input_lens[{i}]", path),
                    start_s=_start(doc, i, path),
                    name=f"request {i}",
                )
            )
            continue
        itls = doc["itls"][i] if "itls" in doc else None
        if itls is not None and not isinstance(itls, list):
            raise BadInput(f"vllm bench serve result: itls[{i}] is not a list", path)
        requests.append(
            ImportedRequest(
                ok=True,
                name=f"request {i}",
                prompt_tokens=tokens(doc["input_lens"][i], f"input_lens[{i}]", path),
                completion_tokens=tokens(doc["output_lens"][i], f"output_lens[{i}]", path),
                ttft_s=seconds(doc["ttfts"][i], f"ttfts[{i}]", path),
                e2e_s=seconds(doc["latencies"][i], f"latencies[{i}]", path),
                start_s=_start(doc, i, path),
                itl_us=None if itls is None else [_microseconds(gap, f"itls[{i}]", path) for gap in itls],
            )
        )
    ok = sum(r.ok for r in requests)
    for key, want in (("completed", ok), ("failed", n - ok)):
        if key in doc and doc[key] != want:
            raise BadInput(
                f"vllm bench serve result says {key} {doc[key]!r}, but its per-request errors give {want}: the file was edited or is damaged", path
            )
    concurrency = doc.get("max_concurrency") or n
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        raise BadInput(f"vllm bench serve result: max_concurrency is {doc.get('max_concurrency')!r}", path)
    where = f"the benchmark at max concurrency {doc.get('max_concurrency')}"
    # Identities the file names, for the redactor (the tokenizer path is left out: the journal never holds it).
    private = _identities(doc)
    return ImportedFile(
        path=path,
        sha256=source.sha256,
        tool=TOOL,
        version=None,
        format="vllm bench serve result (--save-detailed)",
        not_recorded=list(NOT_RECORDED),
        groups=[ImportedGroup(concurrency=concurrency, requests=requests, where=where)],
        private=private,
        started_at=_date(doc.get("date")),
    )


def _microseconds(value: Any, what: str, path: Any) -> int:
    gap = seconds(value, what, path)
    if gap is None:
        raise BadInput(f"vllm bench serve result: {what} holds null, not a time", path)
    return round(gap * 1e6)


def _start(doc: dict[str, Any], i: int, path: Any) -> float | None:
    return seconds(doc["start_times"][i], f"start_times[{i}]", path) if "start_times" in doc else None


def _date(value: Any) -> str | None:
    """``20261201-230618`` (local time, no zone: vLLM's strftime) as ``2026-12-01T23:06:18``."""
    if isinstance(value, str) and len(value) == 15 and value[8] == "-" and (value[:8] + value[9:]).isdigit():
        return f"{value[:4]}-{value[4:6]}-{value[6:8]}T{value[9:11]}:{value[11:13]}:{value[13:15]}"
    return None


def _identities(doc: dict[str, Any]) -> dict[str, str]:
    """What the file names (its model id and label), by the header's typed names, for the redactor."""
    return {name: doc[key] for key, name in (("model_id", "model"), ("label", "label")) if isinstance(doc.get(key), str) and doc[key]}
