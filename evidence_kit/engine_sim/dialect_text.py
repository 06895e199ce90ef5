"""The simulator's ``/metrics`` in SGLang's or llama.cpp's names: the same numbers as its vLLM
registry, written the way each engine writes them.

The names, types and help texts are each engine's own, as ``docs/engines.md`` cites them:
SGLang's from ``python/sglang/srt/metrics/collector.py`` (prometheus_client, counters declared
with ``_total``, a ``model_name`` label; the scheduler's gauges carry more labels), llama.cpp's
from its server's ``to_metrics`` (plain text, no labels, every value a C++ ``double`` streamed
with the default six significant digits, so ``1234567`` is written ``1.23457e+06``). They are
written here, not taken from the collector's tables, so a trial against the simulator checks
the collector's names against a second copy.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric

from .profile import Profile

__all__ = ["translate"]


class _Totals:
    """The vLLM registry's samples, summed over their labels (histogram buckets by bound)."""

    def __init__(self, registry: CollectorRegistry):
        self.values: dict[str, float] = {}
        self.buckets: dict[str, dict[str, float]] = {}
        for family in registry.collect():
            for sample in family.samples:
                if sample.name.endswith("_bucket"):
                    by_bound = self.buckets.setdefault(sample.name, {})
                    by_bound[sample.labels["le"]] = by_bound.get(sample.labels["le"], 0.0) + sample.value
                else:
                    self.values[sample.name] = self.values.get(sample.name, 0.0) + sample.value

    def get(self, name: str) -> float:
        return self.values.get(name, 0.0)


class _SGLang:
    """SGLang's series, as its ``TokenizerMetricsCollector`` and ``SchedulerMetricsCollector`` declare them."""

    def __init__(self, totals: _Totals, profile: Profile):
        self.totals, self.profile = totals, profile
        self.model = profile.identity.served_model_name

    def _hit_rate(self) -> float:
        # SGLang's scheduler reports the share of prompt tokens it found cached (over its recent batches; here,
        # over everything so far): a gauge to read, never reconciled.
        queries = self.totals.get("vllm:prefix_cache_queries_total")
        return self.totals.get("vllm:prefix_cache_hits_total") / queries if queries else 0.0

    def collect(self) -> Iterator[Metric]:
        t, labels, values = self.totals, ["model_name"], [self.model]
        for name, doc, source in (
            ("sglang:prompt_tokens", "Number of prefill tokens processed.", "vllm:prompt_tokens_total"),
            ("sglang:generation_tokens", "Number of generation tokens processed.", "vllm:generation_tokens_total"),
            ("sglang:cached_tokens", "Number of cached prompt tokens.", "vllm:prefix_cache_hits_total"),
            ("sglang:num_requests", "Number of requests processed.", "vllm:request_success_total"),
        ):
            counter = CounterMetricFamily(name, doc, labels=labels)
            counter.add_metric(values, t.get(source))
            yield counter
        # The simulator counts no abandoned request as finished (as its vLLM series do not).
        aborted = CounterMetricFamily("sglang:num_aborted_requests", "Number of requests aborted.", labels=labels)
        aborted.add_metric(values, 0.0)
        yield aborted
        for name, doc, source in (
            ("sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.", "vllm:time_to_first_token_seconds"),
            ("sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds", "vllm:e2e_request_latency_seconds"),
        ):
            histogram = HistogramMetricFamily(name, doc, labels=labels)
            buckets = sorted(t.buckets.get(source + "_bucket", {}).items(), key=lambda kv: float(kv[0]))
            histogram.add_metric(values, buckets, t.get(source + "_sum"))
            yield histogram
        # The scheduler's gauges (it labels them with its ranks too).
        sched_labels, sched_values = ["model_name", "tp_rank", "moe_ep_rank"], [self.model, "0", "0"]
        for name, doc, value in (
            ("sglang:num_running_reqs", "The number of running requests.", t.get("vllm:num_requests_running")),
            ("sglang:num_queue_reqs", "The number of requests in the waiting queue.", t.get("vllm:num_requests_waiting")),
            ("sglang:token_usage", "The token usage.", t.get("vllm:kv_cache_usage_perc")),
            ("sglang:cache_hit_rate", "The prefix cache hit rate.", self._hit_rate()),
            ("sglang:max_total_num_tokens", "Maximum total number of tokens in the KV cache pool.", float(self.profile.token_slots)),
        ):
            gauge = GaugeMetricFamily(name, doc, labels=sched_labels)
            gauge.add_metric(sched_values, value)
            yield gauge


def _sglang(totals: _Totals, profile: Profile) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_SGLang(totals, profile))
    return generate_latest(registry)


def _llamacpp(totals: _Totals, profile: Profile) -> bytes:
    t = totals
    counters = [
        (
            "prompt_tokens_total",
            "Number of prompt tokens processed, excluding cached tokens",
            t.get("vllm:prompt_tokens_total") - t.get("vllm:prefix_cache_hits_total"),
        ),
        ("prompt_tokens_cached_total", "Number of prompt tokens reused from the cache", t.get("vllm:prefix_cache_hits_total")),
        ("tokens_predicted_total", "Number of generation tokens processed", t.get("vllm:generation_tokens_total")),
    ]
    if profile.speculation.enabled:
        counters += [
            ("spec_decode_num_draft_tokens_total", "Speculative: Total draft tokens generated", t.get("vllm:spec_decode_num_draft_tokens_total")),
            (
                "spec_decode_num_accepted_tokens_total",
                "Speculative: Total draft tokens accepted by the target model",
                t.get("vllm:spec_decode_num_accepted_tokens_total"),
            ),
            (
                "spec_decode_num_drafts_total",
                "Speculative: Total speculative decoding verification steps",
                t.get("vllm:spec_decode_num_drafts_total"),
            ),
        ]
    gauges = [
        ("requests_processing", "Number of requests processing", t.get("vllm:num_requests_running")),
        ("requests_deferred", "Number of requests deferred", t.get("vllm:num_requests_waiting")),
    ]
    lines: list[str] = []
    for kind, items in (("counter", counters), ("gauge", gauges)):
        for name, doc, value in items:
            # A C++ double streamed with the default precision: six significant digits, like %g.
            lines += [f"# HELP llamacpp:{name} {doc}", f"# TYPE llamacpp:{name} {kind}", f"llamacpp:{name} {value:g}"]
    return ("\n".join(lines) + "\n").encode()


def translate(dialect: str, registry: CollectorRegistry, profile: Profile) -> bytes:
    """The registry's numbers in ``dialect``'s exposition (``sglang`` or ``llama.cpp``)."""
    totals = _Totals(registry)
    return _sglang(totals, profile) if dialect == "sglang" else _llamacpp(totals, profile)
