"""The names the evidence gives what a collector reads from an engine and its machine.

A run's counters (and the Prometheus samples each is read from), the sampled
gauges, the ``nvidia-smi`` fields and a telemetry sample's keys. The collector
reads and writes them; the redactor treats every one of them as a public word of
the format (:mod:`evidence_kit.redact.vocabulary`), so they are named once, here.
"""

from __future__ import annotations

__all__ = ["COUNTERS", "GAUGES", "GPU_FIELDS", "TELEMETRY_KEYS"]

# Journal counter name -> Prometheus sample names (vLLM's, then older spellings).
COUNTERS: dict[str, tuple[str, ...]] = {
    "requests": ("vllm:request_success_total",),
    "prompt_tokens": ("vllm:prompt_tokens_total",),
    "generation_tokens": ("vllm:generation_tokens_total",),
    "prefix_cache_hits": ("vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"),
    "prefix_cache_queries": ("vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"),
    "spec_decode_drafts": ("vllm:spec_decode_num_drafts_total",),
    "spec_decode_draft_tokens": ("vllm:spec_decode_num_draft_tokens_total",),
    "spec_decode_accepted_tokens": ("vllm:spec_decode_num_accepted_tokens_total",),
}

# Sampled gauge name -> Prometheus sample names.
GAUGES: dict[str, tuple[str, ...]] = {
    "running": ("vllm:num_requests_running",),
    "waiting": ("vllm:num_requests_waiting",),
    "kv_usage": ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
    "process_start_time_s": ("process_start_time_seconds",),
    "process_rss_bytes": ("process_resident_memory_bytes",),
}

# nvidia-smi --query-gpu fields; a sample's GPU keys are these with '.' as '_'.
GPU_FIELDS: tuple[str, ...] = ("index", "memory.used", "memory.free", "memory.total", "power.draw", "utilization.gpu")

# Every key a telemetry sample holds (see collect/telemetry.py and collect/metrics.py);
# the sample is a free-form object, so its keys are not in any schema.
TELEMETRY_KEYS: tuple[str, ...] = (
    "type", "sample", "t_s", "resumed", "engine", "gpus", "process", "cgroup",
    "rss_bytes", "peak_rss_bytes", "processes", "memory_bytes", "peak_memory_bytes", "oom_kills",
)
