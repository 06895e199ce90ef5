"""Scrape an engine's Prometheus ``/metrics`` and reconcile its counters with the client's sums."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import httpx

from ..model.dialects import DIALECTS, Dialect
from .metrics_text import samples

__all__ = [
    "Scrape",
    "parse_metrics",
    "scrape",
    "reconcile",
    "RECONCILED",
    "PREFIX_RECONCILED",
    "kv_token_slots",
    "config_fingerprint",
    "shared_prefix_hits",
]

RECONCILED: tuple[str, ...] = ("requests", "prompt_tokens", "generation_tokens")
# Reconciled too where the client has their sums (every ok request of the run reported its cached prompt
# tokens) and the engine's dialect has the counter.
PREFIX_RECONCILED: tuple[str, ...] = ("prefix_cache_hits", "prefix_cache_queries")


@dataclass
class Scrape:
    """One parse of ``/metrics``: summed sample values, labels of info metrics, and the dialect
    (``engine_kind``'s) whose names turn them into the journal's counters and gauges."""

    values: dict[str, float]
    info: dict[str, dict[str, str]]
    dialect: Dialect = DIALECTS["vllm"]

    def first(self, names: tuple[str, ...]) -> float | None:
        """The value of the first of ``names`` the engine exposes; ``a+b`` needs both, summed."""
        for name in names:
            parts = name.split("+")
            if all(part in self.values for part in parts):
                return sum(self.values[part] for part in parts)
        return None

    def counters(self) -> dict[str, float]:
        """The journal's counter names that this engine's dialect has and it exposes, with their values."""
        found = {key: self.first(names) for key, names in self.dialect.counters.items()}
        # A value its engine wrote rounded (llama.cpp past six digits) is no count to reconcile.
        ceiling = self.dialect.exact_below
        return {k: v for k, v in found.items() if v is not None and (ceiling is None or v < ceiling)}

    def gauges(self) -> dict[str, float]:
        """Occupancy, KV usage and process gauges that this engine's dialect has and it exposes."""
        found = {key: self.first(names) for key, names in self.dialect.gauges.items()}
        return {k: v for k, v in found.items() if v is not None}

    def speaks(self) -> bool:
        """Whether any series carries the dialect's prefix (always false for a dialect without one)."""
        return bool(self.dialect.prefix) and any(n.startswith(self.dialect.prefix) for n in self.values)


# ``vllm:request_success_total`` is labelled by ``finished_reason``; a request the client
# abandoned (timeout, disconnect) finishes as ``abort`` (``error`` on newer engines). Those
# are not the completed requests the client counts, so they stay out of the reconciled sum.
UNSUCCESSFUL = {"abort", "error"}


def parse_metrics(text: str, dialect: Dialect = DIALECTS["vllm"]) -> Scrape:
    """Sum every sample per name across labels; ``_created`` series are timestamps, skipped."""
    values: dict[str, float] = {}
    info: dict[str, dict[str, str]] = {}
    for typ, name, labels, value in samples(text):
        if name.endswith("_created"):
            continue
        if name == "vllm:request_success_total" and labels.get("finished_reason") in UNSUCCESSFUL:
            continue
        values[name] = values.get(name, 0.0) + value
        if typ == "info" or name.endswith("_info"):
            info[name] = dict(labels)
    return Scrape(values=values, info=info, dialect=dialect)


async def scrape(client: httpx.AsyncClient, base_url: str, dialect: Dialect, *, timeout: float = 10.0) -> Scrape | None:
    """GET ``/metrics``, read in ``dialect``; ``None`` when the engine has none (or it does not parse)."""
    try:
        response = await client.get(f"{base_url.rstrip('/')}/metrics", timeout=timeout)
        if response.status_code != 200:
            return None
        return parse_metrics(response.text, dialect)
    except (httpx.HTTPError, ValueError):
        return None


def reconcile(
    before: dict[str, float], after: dict[str, float], client_sums: dict[str, int]
) -> tuple[bool | None, dict[str, list[float]], list[str]]:
    """Compare counter deltas with the client's sums.

    Returns the verdict (``None`` when the engine exposes none of the reconciled
    counters), the ``counters`` field of the run record, and one line per mismatch. Only the
    counters present are compared: one the engine's dialect lacks (llama.cpp counts no requests)
    is absent from ``counters``, not reconcilable, never a mismatch.
    """
    counters = {k: [before[k], after[k]] for k in sorted(before) if k in after}
    mismatches: list[str] = []
    present = [k for k in RECONCILED if k in counters]
    for key in present + [k for k in PREFIX_RECONCILED if k in counters and k in client_sums]:
        delta = after[key] - before[key]
        if key == "prefix_cache_queries" and delta == 0:
            continue  # an engine not caching prefixes looks up nothing (vLLM with caching off keeps it at 0)
        if delta != client_sums[key]:
            mismatches.append(f"{key}: engine +{delta:g}, client {client_sums[key]}")
    if not present:
        return None, counters, ["engine exposes no request/token counters"]
    return not mismatches, counters, mismatches


def kv_token_slots(scraped: Scrape | None) -> int | None:
    """KV capacity in tokens as ``/metrics`` states it in the scrape's dialect: SGLang's
    ``sglang:max_total_num_tokens`` gauge; vLLM's ``vllm:cache_config_info``, its
    ``kv_cache_size_tokens`` label (recent vLLM; the number its "KV cache size: N tokens" log line
    prints), else blocks x block size. ``None`` where the dialect states none (llama.cpp)."""
    if scraped is None:
        return None
    gauge = scraped.dialect.capacity_gauge
    if gauge is not None and scraped.values.get(gauge, 0) >= 1:
        return int(scraped.values[gauge])
    labels = scraped.info.get(scraped.dialect.capacity_info or "")
    if not labels:
        return None
    try:
        reported = int(labels.get("kv_cache_size_tokens", ""))
        if reported > 0:
            return reported
    except ValueError:
        pass  # absent ("") or "None": fall back to the blocks
    try:
        slots = int(labels["num_gpu_blocks"]) * int(labels["block_size"])
    except (KeyError, ValueError):
        return None
    return slots if slots > 0 else None


def config_fingerprint(parts: dict[str, Any]) -> str:
    """sha256 of the engine's reported configuration, canonical JSON; compared, never published raw."""
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def shared_prefix_hits(requests: int, overhead_tokens: int, block: int | None) -> int:
    """Prefix-cache hit tokens the shared instruction alone may earn over ``requests`` requests.

    Every prompt opens with the same chat template and instruction; an engine caching by
    whole blocks can reuse the blocks that prefix fills (``overhead_tokens``, measured by the
    calibration, bounds it). Hits beyond that mean prompt text itself was reused.
    """
    return requests * (overhead_tokens // block) * block if block else 0
