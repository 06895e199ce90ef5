"""AIPerf's ``server_metrics_export.json``: what the engine's ``/metrics`` said during the profile.

AIPerf 0.13 scrapes the server's Prometheus endpoint through the run (every 333 ms by default) and writes,
per metric, its series with statistics over the profiling phase: a gauge's ``avg``/``min``/``max``…, a
counter's ``total`` and ``rate``. What maps onto the journal contract:

* **KV capacity**: vLLM's ``vllm:cache_config_info`` labels (``num_gpu_blocks`` × ``block_size``, or its
  ``kv_cache_size_tokens`` label where vLLM sets it), and the cache settings the contract publishes.
* **Counters: not reconciled, and said.** A counter's ``total`` is its last reading inside the profiling
  phase less its last reading before it (AIPerf's ``server_metrics/export_stats.py``); the export does
  not record when those scrapes were, so a total misses the requests that ended after the last scrape
  inside the phase (a phase shorter than a scrape can count none) and can hold the warmup's tail. Such a
  window is not the timed requests' alone: the run's counters stay absent and the page says why
  (``counter-window``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..collect.lifecycle import cache_settings
from ..errors import BadInput

__all__ = ["ServerMetrics", "detect", "read_server_metrics"]


@dataclass
class ServerMetrics:
    """What one server metrics export says of the engine over the profiling phase."""

    kv_token_slots: int | None
    cache: dict[str, Any] | None


def detect(doc: Any) -> bool:
    """An AIPerf server metrics export: ``metrics_phase`` and a ``metrics`` object."""
    return isinstance(doc, dict) and "metrics_phase" in doc and isinstance(doc.get("metrics"), dict)


def _series(metrics: dict[str, Any], name: str) -> list[dict[str, Any]]:
    entry = metrics.get(name)
    series = entry.get("series") if isinstance(entry, dict) else None
    return [s for s in series if isinstance(s, dict)] if isinstance(series, list) else []


def _capacity(labels: dict[str, str]) -> int | None:
    try:
        reported = int(labels.get("kv_cache_size_tokens", ""))
    except ValueError:
        reported = 0  # absent, or "None": the blocks
    if reported > 0:
        return reported
    try:
        slots = int(labels["num_gpu_blocks"]) * int(labels["block_size"])
    except (KeyError, ValueError):
        return None
    return slots if slots > 0 else None


def read_server_metrics(doc: dict[str, Any], path: Path) -> ServerMetrics:
    """The KV capacity and cache settings of an export; a :class:`BadInput` naming ``path`` for a damaged one."""
    if doc.get("metrics_phase") != "profiling":
        raise BadInput(f"AIPerf server metrics of phase {doc.get('metrics_phase')!r}; evidence-kit reads the profiling phase's", path)
    metrics = doc["metrics"]
    info = _series(metrics, "vllm:cache_config_info")
    labels = {str(k): str(v) for k, v in (info[0].get("labels") or {}).items()} if info else {}
    return ServerMetrics(
        kv_token_slots=_capacity(labels) if labels else None,
        cache=cache_settings(labels) if labels else None,
    )
