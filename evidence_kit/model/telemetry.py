"""Telemetry: one sample of an arm's sampled series, and the summary of a series.

Each line of ``telemetry/<journal name>`` is a :class:`TelemetrySample`: the engine's
gauges and counters read from ``/metrics`` (:class:`EngineSample`), one row per GPU from
``nvidia-smi`` (:class:`GpuSample`), the engine's process-group memory
(:class:`ProcessMemory`) and its cgroup's memory (:class:`CgroupMemory`). A source that
was not there is ``null``, never filled in. A journal footer records the
:class:`TelemetrySummary` of its arm's series, which ``analyze`` recomputes.

The fields are the names: each engine field's ``x-prometheus`` maps every engine dialect that
has it (``vllm``, ``sglang``, ``llama.cpp``, ``openai-compatible``) to the Prometheus samples it
is read from, and each GPU field's ``x-nvidia-smi`` names its ``nvidia-smi`` field
(:data:`COUNTERS`, :data:`GAUGES`, :data:`GPU_FIELDS` are read off the models; ``dialects.py``
selects one dialect's names); the redactor keeps every field name public because it is in the
schema. A journal's keys are these field names whatever the engine, so ``analyze`` and
``verify`` read every dialect's evidence alike.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, GetPydanticSchema, NonNegativeInt, WithJsonSchema
from pydantic_core import core_schema

from ._base import Record
from .publication import PUBLIC

__all__ = [
    "COUNTERS",
    "COUNTER_NAMES",
    "DIALECT_NAMES",
    "GAUGES",
    "GPU_FIELDS",
    "CgroupMemory",
    "EngineCounters",
    "EngineGauges",
    "EngineSample",
    "GpuSample",
    "ProcessMemory",
    "Reading",
    "TelemetrySample",
    "TelemetrySummary",
]


# A number as its source reported it: 3 stays 3 and 3.0 stays 3.0, so the pages and the chart
# data copy a value exactly as it was recorded. Checked in pydantic's core, not in Python (a series
# holds millions of readings): strictly an int, else a float (a bool or a string is no number),
# finite and at least 0.
Reading = Annotated[
    int | float,
    GetPydanticSchema(
        lambda _type, _handler: core_schema.union_schema(
            [core_schema.int_schema(ge=0, strict=True), core_schema.float_schema(ge=0, allow_inf_nan=False, strict=True)],
            custom_error_type="reading",
            custom_error_message="must be a finite number at least 0",
        )
    ),
    WithJsonSchema({"type": "number", "minimum": 0}),
]


# The engine dialects, by the ``engine_kind`` words that select them. ``openai-compatible`` is an
# engine whose metric names are not known: it is read for the process collector's names only.
DIALECT_NAMES = ("vllm", "sglang", "llama.cpp", "openai-compatible")


def _prometheus(
    description: str, *, vllm: tuple[str, ...] = (), sglang: tuple[str, ...] = (), llamacpp: tuple[str, ...] = (), every: tuple[str, ...] = ()
) -> Any:
    """A field read from ``/metrics``: per dialect, its sample names, the first present taken
    (``a+b`` is the sum of two samples, both present); a dialect without the field is left out."""
    found = {"vllm": vllm + every, "sglang": sglang + every, "llama.cpp": llamacpp + every, "openai-compatible": every}
    return Field(default=None, description=description, json_schema_extra={"x-prometheus": {k: list(v) for k, v in found.items() if v}})


class EngineGauges(Record):
    """Gauges of the engine's ``/metrics``, as sampled (each dialect's names, then older spellings;
    where they were read from is in ``docs/engines.md``)."""

    running: Annotated[Reading | None, PUBLIC] = _prometheus(
        "requests being processed",
        vllm=("vllm:num_requests_running",),
        sglang=("sglang:num_running_reqs",),
        llamacpp=("llamacpp:requests_processing",),
    )
    waiting: Annotated[Reading | None, PUBLIC] = _prometheus(
        "requests queued", vllm=("vllm:num_requests_waiting",), sglang=("sglang:num_queue_reqs",), llamacpp=("llamacpp:requests_deferred",)
    )
    kv_usage: Annotated[Reading | None, PUBLIC] = _prometheus(
        "fraction of the KV cache in use (0 to 1)", vllm=("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"), sglang=("sglang:token_usage",)
    )
    process_start_time_s: Annotated[Reading | None, PUBLIC] = _prometheus(
        "the engine process's start time, Unix seconds", every=("process_start_time_seconds",)
    )
    process_rss_bytes: Annotated[Reading | None, PUBLIC] = _prometheus(
        "the engine process's resident memory, bytes", every=("process_resident_memory_bytes",)
    )


class EngineCounters(Record):
    """Counters of the engine's ``/metrics``: a run record's ``counters`` has the same names."""

    requests: Annotated[Reading | None, PUBLIC] = _prometheus(
        "requests completed (aborted and errored ones left out)", vllm=("vllm:request_success_total",), sglang=("sglang:num_requests_total",)
    )
    prompt_tokens: Annotated[Reading | None, PUBLIC] = _prometheus(
        "prompt tokens processed",
        vllm=("vllm:prompt_tokens_total",),
        sglang=("sglang:prompt_tokens_total",),
        # llama.cpp counts the prompt tokens it computed and, apart, those it reused from its cache;
        # its usage reports both. Without the second counter (older servers) the sum is not there.
        llamacpp=("llamacpp:prompt_tokens_total+llamacpp:prompt_tokens_cached_total",),
    )
    generation_tokens: Annotated[Reading | None, PUBLIC] = _prometheus(
        "tokens generated",
        vllm=("vllm:generation_tokens_total",),
        sglang=("sglang:generation_tokens_total",),
        llamacpp=("llamacpp:tokens_predicted_total",),
    )
    prefix_cache_hits: Annotated[Reading | None, PUBLIC] = _prometheus(
        "prompt tokens served from the prefix cache",
        vllm=("vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"),
        sglang=("sglang:cached_tokens_total",),
        llamacpp=("llamacpp:prompt_tokens_cached_total",),
    )
    prefix_cache_queries: Annotated[Reading | None, PUBLIC] = _prometheus(
        "prompt tokens looked up in the prefix cache", vllm=("vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total")
    )
    spec_decode_drafts: Annotated[Reading | None, PUBLIC] = _prometheus(
        "speculative-decoding draft steps", vllm=("vllm:spec_decode_num_drafts_total",), llamacpp=("llamacpp:spec_decode_num_drafts_total",)
    )
    spec_decode_draft_tokens: Annotated[Reading | None, PUBLIC] = _prometheus(
        "tokens drafted by speculative decoding",
        vllm=("vllm:spec_decode_num_draft_tokens_total",),
        llamacpp=("llamacpp:spec_decode_num_draft_tokens_total",),
    )
    spec_decode_accepted_tokens: Annotated[Reading | None, PUBLIC] = _prometheus(
        "drafted tokens the model accepted",
        vllm=("vllm:spec_decode_num_accepted_tokens_total",),
        llamacpp=("llamacpp:spec_decode_num_accepted_tokens_total",),
    )
    # The engine's own timing histograms, as their sum (seconds) and count (observations): a run's
    # deltas give the engine's mean TTFT and end-to-end time, which analyze sets against the client's.
    ttft_seconds_sum: Annotated[Reading | None, PUBLIC] = _prometheus(
        "seconds of time to first token observed, summed",
        vllm=("vllm:time_to_first_token_seconds_sum",),
        sglang=("sglang:time_to_first_token_seconds_sum",),
    )
    ttft_seconds_count: Annotated[Reading | None, PUBLIC] = _prometheus(
        "times to first token observed", vllm=("vllm:time_to_first_token_seconds_count",), sglang=("sglang:time_to_first_token_seconds_count",)
    )
    e2e_seconds_sum: Annotated[Reading | None, PUBLIC] = _prometheus(
        "seconds of end-to-end request latency observed, summed",
        vllm=("vllm:e2e_request_latency_seconds_sum",),
        sglang=("sglang:e2e_request_latency_seconds_sum",),
    )
    e2e_seconds_count: Annotated[Reading | None, PUBLIC] = _prometheus(
        "end-to-end request latencies observed",
        vllm=("vllm:e2e_request_latency_seconds_count",),
        sglang=("sglang:e2e_request_latency_seconds_count",),
    )


class EngineSample(EngineGauges, EngineCounters):
    """What one scrape of ``/metrics`` gave: only the metrics the engine exposes are present."""


def _nvidia_smi(description: str, name: str) -> Any:
    return Field(default=None, description=description, json_schema_extra={"x-nvidia-smi": name})


class GpuSample(Record):
    """One GPU's row of ``nvidia-smi --query-gpu``; a cell it could not give (``[N/A]``) is null."""

    index: Annotated[Reading | None, PUBLIC] = _nvidia_smi("the GPU's index as nvidia-smi numbers it", "index")
    memory_used: Annotated[Reading | None, PUBLIC] = _nvidia_smi("memory in use, MiB", "memory.used")
    memory_free: Annotated[Reading | None, PUBLIC] = _nvidia_smi("memory free, MiB", "memory.free")
    memory_total: Annotated[Reading | None, PUBLIC] = _nvidia_smi("memory in all, MiB", "memory.total")
    power_draw: Annotated[Reading | None, PUBLIC] = _nvidia_smi("power draw, W", "power.draw")
    utilization_gpu: Annotated[Reading | None, PUBLIC] = _nvidia_smi("compute utilisation, %", "utilization.gpu")


class ProcessMemory(Record):
    """Summed over every process of the started engine's process group (Linux ``/proc``)."""

    rss_bytes: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="resident memory (VmRSS), bytes")
    peak_rss_bytes: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="peak resident memory (VmHWM), bytes")
    processes: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="processes in the group")


class CgroupMemory(Record):
    """The engine's cgroup v2 memory files; only those that could be read are present."""

    memory_bytes: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="memory.current, bytes")
    peak_memory_bytes: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="memory.peak, bytes")
    oom_kills: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="the oom_kill count of memory.events")


class TelemetrySample(Record):
    """One line of an arm's telemetry series: every source read once, ``null`` when absent."""

    type: Annotated[Literal["sample"], PUBLIC]
    t_s: Annotated[Reading, PUBLIC] = Field(description="seconds since the arm's first sample (continued across a resume)")
    resumed: Annotated[bool, PUBLIC] = Field(default=False, description="true on the first sample a resumed collector took")
    engine: EngineSample | None = Field(default=None, description="null when /metrics did not answer")
    gpus: list[GpuSample] | None = Field(default=None, description="null without nvidia-smi")
    process: ProcessMemory | None = Field(default=None, description="null when the collector did not start the engine")
    cgroup: CgroupMemory | None = Field(default=None, description="null without a readable cgroup")


class TelemetrySummary(Record):
    """Extremes over an arm's samples, in the order the footer records them; null for a source
    never seen. ``oom_kills`` counts the cgroup's OOM kills since the first sample that saw it."""

    samples: Annotated[NonNegativeInt, PUBLIC] = Field(description="samples in the series")
    max_running: Annotated[Reading | None, PUBLIC] = Field(description="most requests running in any sample")
    max_waiting: Annotated[Reading | None, PUBLIC] = Field(description="most requests waiting in any sample")
    max_kv_usage: Annotated[Reading | None, PUBLIC] = Field(description="highest KV cache usage (0 to 1)")
    gpu: Annotated[Literal["present", "absent"], PUBLIC] = Field(description="whether any sample had GPU rows")
    min_gpu_free_mib: Annotated[Reading | None, PUBLIC] = Field(description="least free memory of any GPU, MiB")
    max_gpu_used_mib: Annotated[Reading | None, PUBLIC] = Field(description="most memory used on any GPU, MiB")
    max_gpu_power_w: Annotated[Reading | None, PUBLIC] = Field(description="highest power draw of any GPU, W")
    max_process_rss_bytes: Annotated[NonNegativeInt | None, PUBLIC] = Field(description="highest resident memory of the process group")
    max_cgroup_memory_bytes: Annotated[NonNegativeInt | None, PUBLIC] = Field(description="highest cgroup memory.current")
    cgroup_peak_memory_bytes: Annotated[NonNegativeInt | None, PUBLIC] = Field(description="highest cgroup memory.peak")
    oom_kills: Annotated[NonNegativeInt | None, PUBLIC] = Field(description="OOM kills since the first sample that saw the cgroup")


def _sources(model: type[Record], key: str) -> dict[str, Any]:
    """Field name -> the source named under ``key`` in the field's JSON Schema extras."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        extra = field.json_schema_extra
        assert isinstance(extra, dict), name
        out[name] = extra[key]
    return out


def _per_dialect(model: type[Record]) -> dict[str, dict[str, tuple[str, ...]]]:
    sources = _sources(model, "x-prometheus")
    return {d: {k: tuple(v[d]) for k, v in sources.items() if d in v} for d in DIALECT_NAMES}


# Every counter's name, as samples and a run record's ``counters`` write it.
COUNTER_NAMES: tuple[str, ...] = tuple(EngineCounters.model_fields)
# Per dialect: a counter's name (in samples and in a run record's ``counters``) -> its Prometheus
# sample names. A counter its dialect has no name for is absent: not reconcilable, never a mismatch.
COUNTERS: dict[str, dict[str, tuple[str, ...]]] = _per_dialect(EngineCounters)
# Per dialect: a sampled gauge's name -> its Prometheus sample names.
GAUGES: dict[str, dict[str, tuple[str, ...]]] = _per_dialect(EngineGauges)
# A GPU row's key -> the nvidia-smi --query-gpu field it is read from, in the order queried.
GPU_FIELDS: dict[str, str] = _sources(GpuSample, "x-nvidia-smi")
