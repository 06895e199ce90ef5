"""The simulator's ``/metrics``: vLLM's Prometheus names, labels and types, in its own registry.

Names follow vLLM's V1 engine (``vllm/v1/metrics/loggers.py``): counters are declared without
``_total`` and exposed with it, every series carries ``model_name`` and ``engine`` labels,
``vllm:cache_config_info`` is a gauge set to 1 whose labels describe the cache.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from .dialect_text import translate
from .profile import Profile

__all__ = ["EngineMetrics", "CONTENT_TYPE_LATEST"]

# vLLM's bucket boundaries, so histogram quantiles read the same as on a real engine.
TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
LATENCY_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)
ITL_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0)
TOKEN_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
# The finished_reason labels vLLM (0.32) declares. A request its client abandons is not counted
# here at all (only its prompt and generated tokens are): "abort" stays at zero for disconnects.
FINISH_REASONS = ("stop", "length", "abort", "error", "repetition")


class EngineMetrics:
    """Every series the simulated engine exposes; the engine calls the ``on_*`` methods."""

    def __init__(self, profile: Profile, *, running: Callable[[], float], waiting: Callable[[], float], kv_usage: Callable[[], float]):
        self.registry = CollectorRegistry(auto_describe=True)
        self.dialect, self.profile = profile.dialect, profile
        base = {"model_name": profile.identity.served_model_name, "engine": "0"}
        names = list(base)
        reg = self.registry

        def gauge(name: str, doc: str, fn: Callable[[], float]) -> None:
            Gauge(name, doc, names, registry=reg).labels(**base).set_function(fn)

        gauge("vllm:num_requests_running", "Number of requests in model execution batches.", running)
        gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting)
        gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kv_usage)

        def counter(name: str, doc: str) -> Counter:
            return Counter(name, doc, names, registry=reg).labels(**base)

        self.prompt_tokens = counter("vllm:prompt_tokens", "Number of prefill tokens processed.")
        self.generation_tokens = counter("vllm:generation_tokens", "Number of generation tokens processed.")
        # vLLM exposes these whether or not it caches prefixes; with caching off they stay at zero, so a
        # client's prefix-cache check has them to read. With it on, every admitted request adds its prompt
        # tokens to the queries and the tokens found cached to the hits (vllm/v1/metrics/stats.py).
        self.prefix_queries = counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.")
        self.prefix_hits = counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.")
        success = Counter("vllm:request_success", "Count of successfully processed requests.", names + ["finished_reason"], registry=reg)
        self.success = {reason: success.labels(**base, finished_reason=reason) for reason in FINISH_REASONS}

        def histogram(name: str, doc: str, buckets: tuple[float, ...]) -> Histogram:
            return Histogram(name, doc, names, buckets=buckets, registry=reg).labels(**base)

        self.ttft = histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_BUCKETS)
        self.itl = histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", ITL_BUCKETS)
        self.tpot = histogram("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", ITL_BUCKETS)
        self.e2e = histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LATENCY_BUCKETS)
        self.queue = histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LATENCY_BUCKETS)
        self.prefill = histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LATENCY_BUCKETS)
        self.decode = histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LATENCY_BUCKETS)
        self.prompt_hist = histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", TOKEN_BUCKETS)
        self.generation_hist = histogram("vllm:request_generation_tokens", "Number of generation tokens processed.", TOKEN_BUCKETS)

        cache = {
            "block_size": str(profile.scheduler.block_size),
            "cache_dtype": profile.kv_cache.dtype,
            "num_gpu_blocks": str(profile.num_gpu_blocks),
            "num_cpu_blocks": "0",
            "gpu_memory_utilization": "0.9",
            "enable_prefix_caching": str(profile.kv_cache.prefix_caching),
            "engine": "0",
        }
        Gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", list(cache), registry=reg).labels(**cache).set(1)

        # What prometheus_client's process collector shows on a real vLLM server: the engine's start
        # time. Taken when this engine starts, so a restart shows even when several simulated
        # engines share one Python process (tests run them in threads).
        Gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", registry=reg).set(time.time())

        self.spec_enabled = profile.speculation.enabled
        if self.spec_enabled:
            self.drafts = counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.")
            self.draft_tokens = counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.")
            self.accepted_tokens = counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.")
            per_pos = Counter(
                "vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.", names + ["position"], registry=reg
            )
            self.accepted_per_pos = [per_pos.labels(**base, position=str(i)) for i in range(profile.speculation.k)]

    def on_prefix_lookup(self, prompt_tokens: int, cached_tokens: int) -> None:
        """One admitted request looked its prompt up in the prefix cache and found ``cached_tokens``."""
        self.prefix_queries.inc(prompt_tokens)
        self.prefix_hits.inc(cached_tokens)

    def on_draft(self, k: int, accepted: int) -> None:
        """One speculative step of one sequence: ``k`` drafted, the first ``accepted`` kept."""
        self.drafts.inc()
        self.draft_tokens.inc(k)
        self.accepted_tokens.inc(accepted)
        for position in range(accepted):
            self.accepted_per_pos[position].inc()

    def render(self) -> bytes:
        """``/metrics`` in the profile's dialect: vLLM's registry, or the same numbers under SGLang's
        or llama.cpp's names (``dialect_text.py``)."""
        if self.dialect == "vllm":
            return generate_latest(self.registry)
        return translate(self.dialect, self.registry, self.profile)
