"""What vLLM's start-up log states: its version, engine settings and KV cache, who it serves.

Read by ``redact/formats/vllm_log.py`` from the lines ``vllm serve`` prints: the banner, the
``non-default args`` dict, the engine-config line, the KV cache lines and the server's address.
Warnings and tracebacks are text: they are counted by level, never copied.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, NonNegativeInt

from ..publication import PUBLIC, SECRET, IdentityKind, identity
from .base import Count, Flag, FormatRecord, Number, Whole
from .shapes import IdentityText, LogStamp, Version
from .vocabulary import (
    AttentionBackend,
    CacheDType,
    Device,
    DistributedBackend,
    ExceptionName,
    LoadFormat,
    ModelDType,
    Quantization,
    ReasoningParser,
    SpeculativeMethod,
    TokenizerMode,
    ToolParser,
)

__all__ = ["KvCacheFacts", "ListenAddress", "LogCounts", "SpeculativeSettings", "VllmSettings", "VllmStartup"]

# Addresses that name no machine: a server bound to one of them is published as it is.
ListenAddress = Literal["0.0.0.0", "127.0.0.1", "::", "::1", "localhost"]


class SpeculativeSettings(FormatRecord):
    """``--speculative-config``: the method and its token counts public, a draft model an identity."""

    method: Annotated[SpeculativeMethod | None, PUBLIC] = None
    num_speculative_tokens: Whole = None
    prompt_lookup_min: Whole = None
    prompt_lookup_max: Whole = None
    draft_tensor_parallel_size: Whole = None
    draft_kv_cache_dtype: Annotated[CacheDType | None, PUBLIC] = None
    draft_model: Annotated[IdentityText | None, identity(IdentityKind.MODEL)] = None
    draft_model_path: Annotated[IdentityText | None, identity(IdentityKind.PATH)] = None


class VllmSettings(FormatRecord):
    """Engine settings, from ``non-default args`` and the engine-config line (the last stated wins)."""

    max_model_len: Whole = None
    block_size: Whole = None
    kv_cache_dtype: Annotated[CacheDType | None, PUBLIC] = None
    dtype: Annotated[ModelDType | None, PUBLIC] = None
    quantization: Annotated[Quantization | None, PUBLIC] = None
    tensor_parallel_size: Whole = None
    pipeline_parallel_size: Whole = None
    data_parallel_size: Whole = None
    gpu_memory_utilization: Number = None
    max_num_seqs: Whole = None
    max_num_batched_tokens: Whole = None
    kv_cache_memory_bytes: Whole = None
    swap_space: Number = None
    cpu_offload_gb: Number = None
    seed: Whole = None
    enable_prefix_caching: Flag = None
    enable_chunked_prefill: Flag = None
    enforce_eager: Flag = None
    trust_remote_code: Flag = None
    async_scheduling: Flag = None
    enable_prompt_tokens_details: Flag = None
    enable_auto_tool_choice: Flag = None
    load_format: Annotated[LoadFormat | None, PUBLIC] = None
    tokenizer_mode: Annotated[TokenizerMode | None, PUBLIC] = None
    reasoning_parser: Annotated[ReasoningParser | None, PUBLIC] = None
    tool_call_parser: Annotated[ToolParser | None, PUBLIC] = None
    attention_backend: Annotated[AttentionBackend | None, PUBLIC] = None
    distributed_executor_backend: Annotated[DistributedBackend | None, PUBLIC] = None
    device: Annotated[Device | None, PUBLIC] = None


class KvCacheFacts(FormatRecord):
    """What the engine found room for, as it logs it."""

    memory_bytes: Whole = Field(default=None, description="KV cache memory: 'Available KV cache memory', or a CPU engine's 'Explicitly set'")
    blocks: Whole = Field(default=None, description="'# GPU blocks'")
    tokens: Whole = Field(default=None, description="'GPU KV cache size: N tokens' (or CPU, XPU...)")
    device: Annotated[Literal["GPU", "CPU", "XPU", "TPU", "HPU"] | None, PUBLIC] = None
    max_concurrency: Number = Field(default=None, description="'Maximum concurrency for T tokens per request: Cx'")
    concurrency_tokens_per_request: Whole = None


class LogCounts(FormatRecord):
    """The log's lines counted, never copied: by level, tracebacks, the exception the last ended in."""

    lines: Count = 0
    debug: Count = 0
    info: Count = 0
    warning: Count = 0
    error: Count = 0
    critical: Count = 0
    other: Count = Field(default=0, description="lines not in vLLM's log format (uvicorn's, Python's warnings, progress bars)")
    tracebacks: Count = 0
    last_exception: Annotated[ExceptionName | None, PUBLIC] = None
    first_time: Annotated[LogStamp | None, PUBLIC] = None
    last_time: Annotated[LogStamp | None, PUBLIC] = None
    values_withheld: Count = Field(default=0, description="values found whose shape no public field admits (an unknown dtype, say)")
    settings_unread: Count = Field(default=0, description="settings in 'non-default args' this reader does not know")


class VllmStartup(FormatRecord):
    """One vLLM server's start-up log."""

    version: Annotated[Version | None, PUBLIC] = None
    simulated: Annotated[bool, PUBLIC] = Field(default=False, description="the log is evidence-kit's simulator's")
    simulated_time_scale: Number = Field(default=None, description="how much faster than the modelled engine the simulator ran")
    engine_starts: Count = Field(default=0, description="engine-config lines: more than one when the log holds restarts")
    settings: VllmSettings = Field(default_factory=VllmSettings)
    speculative: SpeculativeSettings | None = None
    kv_cache: KvCacheFacts = Field(default_factory=KvCacheFacts)
    ready: Annotated[bool, PUBLIC] = Field(default=False, description="the server said it is serving")
    init_engine_seconds: Number = None
    weights_load_seconds: Number = None
    listen: Annotated[ListenAddress | None, PUBLIC] = Field(default=None, description="the address it binds, when that names no machine")
    port: Annotated[NonNegativeInt | None, PUBLIC] = None
    log: LogCounts = Field(default_factory=LogCounts)

    model: Annotated[IdentityText | None, identity(IdentityKind.MODEL)] = None
    model_path: Annotated[IdentityText | None, identity(IdentityKind.PATH)] = None
    tokenizer: Annotated[IdentityText | None, identity(IdentityKind.MODEL)] = None
    tokenizer_path: Annotated[IdentityText | None, identity(IdentityKind.PATH)] = None
    served_model_name: Annotated[list[IdentityText], identity(IdentityKind.MODEL)] = Field(default_factory=list)
    revision: Annotated[IdentityText | None, identity(IdentityKind.REVISION)] = None
    tokenizer_revision: Annotated[IdentityText | None, identity(IdentityKind.REVISION)] = None
    code_revision: Annotated[IdentityText | None, identity(IdentityKind.REVISION)] = None
    host: Annotated[IdentityText | None, identity(IdentityKind.HOST)] = None
    host_ip: Annotated[IdentityText | None, identity(IdentityKind.IP)] = None
    endpoint: Annotated[IdentityText | None, identity(IdentityKind.ENDPOINT)] = None
    download_dir: Annotated[IdentityText | None, identity(IdentityKind.PATH)] = None
    chat_template: Annotated[IdentityText | None, identity(IdentityKind.PATH)] = None
    image: Annotated[IdentityText | None, identity(IdentityKind.IMAGE)] = None
    container: Annotated[IdentityText | None, identity(IdentityKind.CONTAINER)] = None
    gpus: Annotated[list[IdentityText], identity(IdentityKind.GPU)] = Field(default_factory=list)
    api_key: Annotated[list[IdentityText], SECRET] = Field(default_factory=list)
