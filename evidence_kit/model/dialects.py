"""Engine dialects: which Prometheus names, and which capacity line, one kind of engine speaks.

A dialect is data. Its counter and gauge names are the telemetry models' ``x-prometheus``
(:data:`~.telemetry.COUNTERS`, :data:`~.telemetry.GAUGES`); here each is joined with the way
the engine states its KV capacity, in ``/metrics`` or in its start-up log. ``engine_kind``
selects the dialect (:func:`dialect_for`): ``vllm``, ``sglang`` and ``llama.cpp`` their own,
``simulated`` the one the plan's ``dialect`` names (vLLM's unless it says otherwise), and
``openai-compatible`` none: an engine whose names are not known has no counters to reconcile.
Every name, with the engine source it was read from, is in ``docs/engines.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .telemetry import COUNTERS, GAUGES

__all__ = ["Dialect", "DIALECTS", "SIMULATED_DIALECTS", "dialect_for"]


@dataclass(frozen=True)
class Dialect:
    """One engine's metric names and capacity statements."""

    name: str
    prefix: str  # every engine-specific series of this dialect starts with it ("" for none)
    counters: dict[str, tuple[str, ...]]
    gauges: dict[str, tuple[str, ...]]
    capacity_gauge: str | None  # a /metrics gauge whose value is the KV capacity in tokens
    capacity_info: str | None  # an info metric whose labels state the KV cache (vLLM's cache_config_info)
    # Regular expressions for the start-up log line that states the KV capacity, tried in order (the
    # last line the first matching one finds counts): its group ``tokens`` is the capacity, else its
    # groups ``slots`` x ``per_slot`` are.
    capacity_log: tuple[str, ...]
    # Counter values from here up are not exact counts: llama.cpp streams each value as a C++
    # double with six significant digits (1234567 is written 1.23457e+06).
    exact_below: float | None = None


def _dialect(
    name: str, prefix: str, *, gauge: str | None = None, info: str | None = None, log: tuple[str, ...] = (), exact_below: float | None = None
) -> Dialect:
    return Dialect(
        name=name,
        prefix=prefix,
        counters=COUNTERS[name],
        gauges=GAUGES[name],
        capacity_gauge=gauge,
        capacity_info=info,
        capacity_log=log,
        exact_below=exact_below,
    )


DIALECTS: dict[str, Dialect] = {
    # "KV cache size: 1,330,576 tokens" (vllm/v1/core/kv_cache_utils.py); cache_config_info's labels.
    "vllm": _dialect("vllm", "vllm:", info="vllm:cache_config_info", log=(r"KV cache size:\s*(?P<tokens>[\d,_]+)\s*tokens",)),
    # The scheduler logs "max_total_num_tokens=N, chunked_prefill_size=..." and newer servers
    # expose the same number as the gauge sglang:max_total_num_tokens.
    "sglang": _dialect("sglang", "sglang:", gauge="sglang:max_total_num_tokens", log=(r"max_total_num_tokens=(?P<tokens>\d+)",)),
    # /metrics states no capacity. The server logs "initializing, n_slots = S, n_ctx_slot = C,
    # kv_unified = '...'" at its default verbosity (tools/server/server-context.cpp): S slots of C
    # KV cells each, or, unified, C cells all slots share. libllama's "llama_context: n_ctx = N"
    # (src/llama-context.cpp), the same total, is logged by older servers, and by this one only
    # with -lv 4; anchored to its prefix, since the slots' own lines say "n_ctx = C" too.
    "llama.cpp": _dialect(
        "llama.cpp",
        "llamacpp:",
        log=(
            r"initializing, n_slots = (?P<slots>\d+), n_ctx_slot = (?P<per_slot>\d+), kv_unified = 'false'",
            r"initializing, n_slots = \d+, n_ctx_slot = (?P<tokens>\d+), kv_unified = 'true'",
            r"llama_context: n_ctx\s+=\s*(?P<tokens>\d+)",
        ),
        exact_below=1e6,
    ),
    "openai-compatible": _dialect("openai-compatible", ""),
}
# The dialects the simulator can speak (and a simulated plan's ``dialect`` can name).
SIMULATED_DIALECTS = ("vllm", "sglang", "llama.cpp")


def dialect_for(engine_kind: str, dialect: str | None = None) -> Dialect:
    """The dialect ``engine_kind`` reads ``/metrics`` with; ``dialect`` only for ``simulated``."""
    if engine_kind == "simulated":
        return DIALECTS[dialect or "vllm"]
    return DIALECTS[engine_kind]
