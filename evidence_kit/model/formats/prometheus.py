"""A Prometheus text-exposition scrape: samples with their values public and their labels classed by name.

Read by ``redact/formats/prometheus_text.py`` from an engine's ``/metrics`` or a scrape that went
through Prometheus (federation, an export), where every series also carries the target's
labels: ``instance="host:port"``, ``job``, ``pod``, ``namespace``, ``node``. ``LABELS`` is the one
registry of label names: a public label's values are published when they fit its rule (a closed
vocabulary or a strict shape); an identity label's value goes into the :class:`Sample` field of
its name, as an identity of its kind. A label no entry names, or a value its rule refuses, is
counted and not published. Metric names are published when their family is one of ``METRICS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, NonNegativeInt, model_validator

from ..publication import PUBLIC, IdentityKind, identity
from ..telemetry import COUNTERS, GAUGES
from .base import FormatRecord, Value
from .constraints import Checked
from .shapes import DRIVER_VERSION, GPU_PRODUCT, NUMBER_TEXT, SMALL_INT, VERSION, IdentityText, Shape, Words
from .vocabulary import CacheDType, words

__all__ = ["LABELS", "METRICS", "LabelRule", "MetricName", "PrometheusScrape", "PublicLabel", "Sample"]

_FAMILY_SUFFIXES = ("_total", "_created", "_bucket", "_sum", "_count", "_info", "_gcount", "_gsum")
_ENGINE_FAMILIES = {
    "vllm": "admission_rejections cache_config_info e2e_request_latency_seconds engine_sleep_state estimated_flops_per_gpu "
    "estimated_read_bytes_per_gpu estimated_write_bytes_per_gpu external_prefix_cache_hits external_prefix_cache_queries "
    "generation_tokens inter_token_latency_seconds iteration_tokens kv_cache_usage_perc mm_cache_hits mm_cache_queries "
    "num_preemptions num_requests_running num_requests_waiting num_requests_waiting_by_reason prefix_cache_hits "
    "prefix_cache_queries prompt_tokens prompt_tokens_by_source prompt_tokens_cached prompt_tokens_cached_by_source "
    "request_decode_time_seconds request_generation_tokens request_inference_time_seconds request_max_num_generation_tokens "
    "request_num_preemptions request_params_max_tokens request_params_n request_prefill_kv_computed_tokens "
    "request_prefill_time_seconds request_prompt_tokens request_queue_time_seconds request_success "
    "request_time_per_output_token_seconds spec_decode_num_accepted_tokens spec_decode_num_accepted_tokens_per_pos "
    "spec_decode_num_draft_tokens spec_decode_num_drafts time_to_first_token_seconds time_per_output_token_seconds "
    "gpu_cache_usage_perc cpu_cache_usage_perc num_requests_swapped gpu_prefix_cache_hits gpu_prefix_cache_queries "
    "gpu_prefix_cache_hit_rate cpu_prefix_cache_hit_rate avg_prompt_throughput_toks_per_s avg_generation_throughput_toks_per_s "
    "spec_decode_draft_acceptance_rate spec_decode_efficiency lora_requests_info",
    "sglang": "cache_hit_rate cached_tokens e2e_request_latency_seconds generation_tokens max_total_num_tokens num_aborted_requests "
    "num_queue_reqs num_requests num_running_reqs num_used_tokens prompt_tokens spec_accept_length time_to_first_token_seconds "
    "inter_token_latency_seconds token_usage gen_throughput",
    "llamacpp": "n_busy_slots_per_decode n_decode n_tokens_max predicted_tokens_seconds prompt_seconds prompt_tokens "
    "prompt_tokens_cached prompt_tokens_seconds requests_deferred requests_processing spec_decode_num_accepted_tokens "
    "spec_decode_num_draft_tokens spec_decode_num_drafts tokens_predicted tokens_predicted_seconds kv_cache_usage_ratio kv_cache_tokens",
}
# prometheus_client's process and Python collectors, the HTTP instrumentator vLLM uses, DCGM's
# exporter, and the series Prometheus adds to every scrape.
_OTHER_FAMILIES = (
    "process_cpu_seconds process_max_fds process_open_fds process_resident_memory_bytes process_start_time_seconds "
    "process_virtual_memory_bytes python_gc_collections python_gc_objects_collected python_gc_objects_uncollectable python_info "
    "http_request_duration_highr_seconds http_request_duration_seconds http_request_size_bytes http_requests http_response_size_bytes "
    "DCGM_FI_DEV_GPU_UTIL DCGM_FI_DEV_MEM_COPY_UTIL DCGM_FI_DEV_FB_USED DCGM_FI_DEV_FB_FREE DCGM_FI_DEV_POWER_USAGE "
    "DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_MEMORY_TEMP DCGM_FI_DEV_SM_CLOCK DCGM_FI_DEV_MEM_CLOCK DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION "
    "DCGM_FI_DEV_XID_ERRORS DCGM_FI_DEV_PCIE_REPLAY_COUNTER DCGM_FI_PROF_GR_ENGINE_ACTIVE DCGM_FI_PROF_SM_ACTIVE "
    "DCGM_FI_PROF_DRAM_ACTIVE DCGM_FI_PROF_PIPE_TENSOR_ACTIVE DCGM_FI_PROF_NVLINK_TX_BYTES DCGM_FI_PROF_NVLINK_RX_BYTES "
    "DCGM_FI_PROF_PCIE_TX_BYTES DCGM_FI_PROF_PCIE_RX_BYTES "
    "up scrape_duration_seconds scrape_samples_scraped scrape_samples_post_metric_relabeling scrape_series_added"
)


def _families() -> frozenset[str]:
    names = {f"{engine}:{name}" for engine, text in _ENGINE_FAMILIES.items() for name in text.split()} | set(_OTHER_FAMILIES.split())
    # Every name the telemetry models read a counter or a gauge from, whatever the dialect.
    for table in (COUNTERS, GAUGES):
        for dialect in table.values():
            parts = {part for sources in dialect.values() for source in sources for part in source.split("+")}
            names |= {next((p[: -len(s)] for s in ("_total", "_sum", "_count") if p.endswith(s)), p) for p in parts}
    return frozenset(names)


METRICS = Words(
    "metric family",
    _families(),
    "the families vLLM, SGLang and llama.cpp expose, prometheus_client's process and Python collectors, the HTTP "
    "instrumentator's, DCGM's and Prometheus' own, each with its sample suffixes (_total, _bucket, _created, ...)",
    _FAMILY_SUFFIXES,
)
MetricName = Annotated[str, AfterValidator(METRICS), METRICS]


@dataclass(frozen=True)
class LabelRule:
    """How one label name is published: a public label's value when it is one of ``words`` or fits
    one of ``shapes``; an identity label's (``kind``) as the :class:`Sample` field of its name."""

    words: frozenset[str] = frozenset()
    shapes: tuple[Shape, ...] = ()
    kind: IdentityKind | None = None

    def fits(self, value: str) -> bool:
        return value in self.words or any(shape.fits(value) for shape in self.shapes)


def _public(*vocabulary: str | tuple[str, ...], shapes: tuple[Shape, ...] = ()) -> LabelRule:
    flat = {w for item in vocabulary for w in ((item,) if isinstance(item, str) else item)}
    return LabelRule(words=frozenset(flat), shapes=shapes)


_SETTING = (NUMBER_TEXT,)
_SETTING_WORDS = ("True", "False", "None", "[]", "")
ROUTES = (
    "/openapi.json /docs /docs/oauth2-redirect /redoc /load /version /kv_event_sources /health /metrics /tokenize /detokenize "
    "/v1/models /ping /invocations /v1/chat/completions /v1/chat/completions/batch /v1/responses /v1/responses/{response_id} "
    "/v1/responses/{response_id}/cancel /v1/completions /v1/messages /v1/messages/count_tokens /generative_scoring "
    "/scale_elastic_ep /is_scaling_elastic_ep /v1/chat/completions/render /v1/messages/render /v1/completions/render "
    "/v1/responses/render /v1/chat/completions/derender /v1/completions/derender /inference/v1/generate "
    "/inference/v1/abort_requests /v1/embeddings /pooling /classify /score /v1/score /rerank /v1/rerank /v2/rerank "
    "/v1/audio/transcriptions /v1/audio/translations /server_info /reset_prefix_cache /sleep /wake_up /is_sleeping "
    "/collective_rpc /start_profile /stop_profile /v1/load_lora_adapter /v1/unload_lora_adapter none"
).split()


def _identity(kind: IdentityKind) -> LabelRule:
    return LabelRule(kind=kind)


# Label name -> how its values are published. vLLM's labels (vllm/v1/metrics/loggers.py), its
# cache_config_info's (the CacheConfig fields), prometheus_client's, DCGM's, and the target labels
# a Prometheus scrape adds (Kubernetes service discovery's, relabelled the usual way).
LABELS: dict[str, LabelRule] = {
    "le": _public(shapes=(NUMBER_TEXT,)),
    "quantile": _public(shapes=(NUMBER_TEXT,)),
    "engine": _public(shapes=(SMALL_INT,)),
    "position": _public(shapes=(SMALL_INT,)),
    "generation": _public(shapes=(SMALL_INT,)),
    "gpu": _public(shapes=(SMALL_INT,)),
    "finished_reason": _public("stop", "length", "abort", "error", "repetition"),
    "reason": _public("capacity", "deferred", "max_num_queued_reqs", "max_num_queued_tokens"),
    "source": _public("device", "disk", "external_kv_transfer", "external_unspecified", "host", "local_cache_hit", "local_compute", "p2p"),
    "sleep_state": _public("awake", "discard_all", "weights_offloaded"),
    "method": _public("GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"),
    "status": _public(shapes=(Shape("HTTP status", r"^[1-5](?:xx|[0-9]{2})$", "an HTTP status or its class: 200, 4xx"),)),
    "handler": _public(tuple(ROUTES)),
    "implementation": _public("CPython", "PyPy", "GraalVM", "IronPython", "Jython"),
    "major": _public(shapes=(SMALL_INT,)),
    "minor": _public(shapes=(SMALL_INT,)),
    "patchlevel": _public(shapes=(SMALL_INT,)),
    "version": _public(shapes=(VERSION,)),
    "max_lora": _public(shapes=(SMALL_INT,)),
    **{rank: _public(shapes=(SMALL_INT,)) for rank in ("tp_rank", "pp_rank", "dp_rank", "moe_ep_rank")},  # SGLang scheduler labels
    "device": _public(shapes=(Shape("NVIDIA device", r"^nvidia[0-9]{1,3}$", "nvidia0"),)),
    "modelName": _public(shapes=(GPU_PRODUCT,)),
    "DCGM_FI_DRIVER_VERSION": _public(shapes=(DRIVER_VERSION,)),
    "cache_dtype": _public(words(CacheDType), "None"),
    "mamba_cache_dtype": _public("auto", "float32", "float16", "bfloat16", "None"),
    "mamba_ssm_cache_dtype": _public("auto", "float32", "float16", "bfloat16", "None"),
    "mamba_cache_mode": _public("align", "none", "None"),
    "kv_offloading_backend": _public("native", "lmcache", "None"),
    "prefix_caching_hash_algo": _public("sha256", "sha256_cbor", "sha256_cbor_64bit", "xxhash", "xxhash_cbor", "builtin", "None"),
    "kv_cache_layout": _public("NHD", "HND", "LBHNC", "None"),
    **{
        name: _public(_SETTING_WORDS, shapes=_SETTING)
        for name in (
            "block_size _block_size_resolved user_specified_block_size effective_attention_block_size hash_block_size "
            "cache_hit_alignment_tokens enable_prefix_caching enable_mamba_shared_prefix_checkpoint gpu_memory_utilization "
            "is_attention_free kv_cache_dtype_skip_layers kv_cache_max_concurrency kv_cache_memory_bytes kv_cache_size_tokens "
            "kv_offloading_size kv_sharing_fast_prefill mamba_block_size mamba_page_size_padded num_cpu_blocks num_gpu_blocks "
            "num_gpu_blocks_override prefix_cache_retention_interval prefix_match_unit replayssm_buffer_len skip_page_size_padded "
            "sliding_window swa_bounded_replay use_kda_recoverssm use_replayssm swap_space cpu_offload_gb calculate_kv_scales "
            "cpu_kvcache_space_bytes enable_prefix_caching_for_mamba"
        ).split()
    },
    "model_name": _identity(IdentityKind.MODEL),
    "model": _identity(IdentityKind.MODEL),
    "lora_name": _identity(IdentityKind.MODEL),
    "running_lora_adapters": _identity(IdentityKind.MODEL),
    "waiting_lora_adapters": _identity(IdentityKind.MODEL),
    "instance": _identity(IdentityKind.ENDPOINT),
    "job": _identity(IdentityKind.VALUE),
    "service": _identity(IdentityKind.VALUE),
    "endpoint": _identity(IdentityKind.VALUE),
    "pod": _identity(IdentityKind.POD),
    "exported_pod": _identity(IdentityKind.POD),
    "namespace": _identity(IdentityKind.NAMESPACE),
    "exported_namespace": _identity(IdentityKind.NAMESPACE),
    "container": _identity(IdentityKind.CONTAINER),
    "exported_container": _identity(IdentityKind.CONTAINER),
    "node": _identity(IdentityKind.HOST),
    "kubernetes_io_hostname": _identity(IdentityKind.HOST),
    "hostname": _identity(IdentityKind.HOST),
    "Hostname": _identity(IdentityKind.HOST),
    "host": _identity(IdentityKind.HOST),
    "UUID": _identity(IdentityKind.GPU),
    "pci_bus_id": _identity(IdentityKind.VALUE),
}
PUBLIC_LABELS = Words("public label", frozenset(name for name, rule in LABELS.items() if rule.kind is None), "the public label names of LABELS")
PublicLabel = Annotated[str, AfterValidator(PUBLIC_LABELS), PUBLIC_LABELS]
LABEL_VALUES = Checked(
    "each value one of its label's words or of its label's shapes, in LABELS", frozenset().union(*(r.words for r in LABELS.values()))
)
SpecialValue = Literal["NaN", "+Inf", "-Inf"]

_Model = Annotated[IdentityText | None, identity(IdentityKind.MODEL)]
_Host = Annotated[IdentityText | None, identity(IdentityKind.HOST)]


class Sample(FormatRecord):
    """One sample line: its metric, value and timestamp public, its labels by ``LABELS``."""

    metric: Annotated[MetricName, PUBLIC]
    value: Annotated[float | SpecialValue, PUBLIC]
    timestamp_ms: Annotated[int | None, PUBLIC] = None
    labels: Annotated[dict[PublicLabel, str], PUBLIC, LABEL_VALUES] = Field(default_factory=dict, description="public labels")
    labels_withheld: Annotated[NonNegativeInt, PUBLIC] = Field(default=0, description="labels no rule names, or whose value its rule refuses")

    model_name: _Model = None
    model: _Model = None
    lora_name: _Model = None
    running_lora_adapters: _Model = None
    waiting_lora_adapters: _Model = None
    instance: Annotated[IdentityText | None, identity(IdentityKind.ENDPOINT)] = None
    instance_host: _Host = Field(default=None, description='the host of instance="host:port", so it is pseudonymised wherever it stands alone')
    instance_ip: Annotated[IdentityText | None, identity(IdentityKind.IP)] = None
    job: Value = None
    service: Value = None
    endpoint: Value = None
    pod: Annotated[IdentityText | None, identity(IdentityKind.POD)] = None
    exported_pod: Annotated[IdentityText | None, identity(IdentityKind.POD)] = None
    namespace: Annotated[IdentityText | None, identity(IdentityKind.NAMESPACE)] = None
    exported_namespace: Annotated[IdentityText | None, identity(IdentityKind.NAMESPACE)] = None
    container: Annotated[IdentityText | None, identity(IdentityKind.CONTAINER)] = None
    exported_container: Annotated[IdentityText | None, identity(IdentityKind.CONTAINER)] = None
    node: _Host = None
    kubernetes_io_hostname: _Host = None
    hostname: _Host = None
    Hostname: _Host = None
    host: _Host = None
    UUID: Annotated[IdentityText | None, identity(IdentityKind.GPU)] = None
    pci_bus_id: Value = None

    @model_validator(mode="after")
    def _labels_fit_their_rules(self) -> Sample:
        for name, value in self.labels.items():
            if not LABELS[name].fits(value):
                raise ValueError(f"label {name}: the value does not fit its rule")
        return self


class PrometheusScrape(FormatRecord):
    """One text-exposition scrape (or several, one after another)."""

    samples: list[Sample] = Field(default_factory=list)
    families: Annotated[NonNegativeInt, PUBLIC] = Field(default=0, description="# TYPE lines")
    samples_withheld: Annotated[NonNegativeInt, PUBLIC] = Field(default=0, description="samples of a family METRICS does not name")
    samples_not_kept: Annotated[NonNegativeInt, PUBLIC] = Field(default=0, description="samples past the first 20,000: counted, not kept")
    lines_unread: Annotated[NonNegativeInt, PUBLIC] = Field(default=0, description="lines that are no sample, comment or blank")
