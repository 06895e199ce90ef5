"""vLLM's settings as its start-up log states them: ``non-default args`` and the engine-config line.

``state`` files one setting by its name: an engine setting into ``VllmSettings``, a model, path,
revision, host or key into its identity field of ``VllmStartup``, ``--speculative-config`` into
``SpeculativeSettings``; a name it does not know is counted, never kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .pyrepr import Bare, parse_pairs, parse_value
from .values import is_path, place_host

__all__ = ["Found", "engine_config", "non_default", "scalar"]

# non-default args and engine-config names -> the VllmSettings field they state.
SETTINGS: dict[str, str] = {
    name: name
    for name in (
        "max_model_len block_size kv_cache_dtype dtype quantization tensor_parallel_size pipeline_parallel_size data_parallel_size "
        "gpu_memory_utilization max_num_seqs max_num_batched_tokens kv_cache_memory_bytes swap_space cpu_offload_gb seed "
        "enable_prefix_caching enable_chunked_prefill enforce_eager trust_remote_code async_scheduling enable_prompt_tokens_details "
        "enable_auto_tool_choice load_format tokenizer_mode reasoning_parser tool_call_parser attention_backend "
        "distributed_executor_backend device"
    ).split()
} | {"max_seq_len": "max_model_len", "cache_dtype": "kv_cache_dtype", "device_config": "device"}
# Settings whose value is an identity of the VllmStartup field of the same name (a chat template only when it is a path).
IDENTITIES = ("revision", "tokenizer_revision", "code_revision", "download_dir", "chat_template")
SPECULATIVE: dict[str, str] = {
    "method": "method",
    "num_speculative_tokens": "num_speculative_tokens",
    "num_spec_tokens": "num_speculative_tokens",
    "prompt_lookup_min": "prompt_lookup_min",
    "prompt_lookup_max": "prompt_lookup_max",
    "draft_tensor_parallel_size": "draft_tensor_parallel_size",
}


def scalar(value: Any) -> Any:
    """A repr value as data: bare words become ``None``, booleans and numbers; torch dtypes lose ``torch.``."""
    if not isinstance(value, Bare):
        return value
    word = str(value)
    if word in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[word]
    if re.fullmatch(r"-?\d{1,30}", word):
        return int(word)
    if re.fullmatch(r"-?\d{1,30}\.\d{0,30}(?:[eE][+-]?\d{1,3})?", word):
        return float(word)
    return word.removeprefix("torch.")


@dataclass
class Found:
    """What a vLLM log has said so far, as plain data for the record's types to judge."""

    top: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    spec: dict[str, Any] = field(default_factory=dict)
    kv: dict[str, Any] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=lambda: {"lines": 0, "other": 0, "tracebacks": 0, "settings_unread": 0})
    in_traceback: bool = False

    def model(self, key: str, value: Any) -> None:
        """A model or tokenizer named by a path or by a name."""
        if isinstance(value, str) and value and value != "None":
            self.top[f"{key}_path" if is_path(value) else key] = value

    def server(self, host: Any, port: Any) -> None:
        if isinstance(host, str) and host:
            place_host(self.top, host)
        if isinstance(port, int):
            self.top["port"] = port


def _words(raw: Any) -> list[str]:
    """A list (or one value) of names, without empty ones and ``None``."""
    values = [scalar(v) for v in (raw if isinstance(raw, list) else [raw])]
    return [v for v in values if isinstance(v, str) and v and v != "None"]


def _setting(found: Found, name: str, raw: Any) -> None:
    value = scalar(raw)
    if value is not None and value != "":
        found.settings[SETTINGS[name]] = value


def _identity(found: Found, name: str, raw: Any) -> None:
    value = scalar(raw)
    if isinstance(value, str) and value and value != "None" and (name != "chat_template" or is_path(value)):
        found.top[name] = value


def _structured(found: Found, name: str, raw: Any) -> None:
    if isinstance(raw, dict):
        _setting(found, "reasoning_parser", raw.get("reasoning_parser"))


# A setting that is not an engine setting of VllmSettings: how it is read.
STATED: dict[str, Callable[[Found, str, Any], None]] = {
    **{name: _identity for name in IDENTITIES},
    "model": lambda found, name, raw: found.model(name, scalar(raw)),
    "tokenizer": lambda found, name, raw: found.model(name, scalar(raw)),
    "served_model_name": lambda found, name, raw: found.top.update(served_model_name=_words(raw)),
    "host": lambda found, name, raw: found.server(scalar(raw), None),
    "port": lambda found, name, raw: found.server(None, scalar(raw)),
    "api_key": lambda found, name, raw: found.top.update(api_key=_words(raw)),
    "speculative_config": lambda found, name, raw: _speculative(found, raw),
    "structured_outputs_config": _structured,
}


def state(found: Found, name: str, raw: Any) -> None:
    """One setting of ``non-default args`` or of the engine-config line."""
    if name in SETTINGS:
        _setting(found, name, raw)
    elif name in STATED:
        STATED[name](found, name, raw)
    else:
        found.log["settings_unread"] += 1


def _speculative(found: Found, raw: Any) -> None:
    if isinstance(raw, str):  # older releases take --speculative-config as a JSON string
        try:
            raw = json.loads(raw)
        except ValueError:
            return
    if not isinstance(raw, dict):
        return
    for key, value in raw.items():
        value = scalar(value)
        if key in SPECULATIVE and value is not None:
            found.spec[SPECULATIVE[key]] = value
        elif key == "model" and isinstance(value, str) and value:
            found.spec["draft_model_path" if is_path(value) else "draft_model"] = value


def non_default(found: Found, text: str) -> None:
    """``non-default args: {...}``: each setting of the dict."""
    args = parse_value(text)
    if isinstance(args, dict):
        for name, raw in args.items():
            state(found, name, raw)


def engine_config(found: Found, version: str, text: str) -> None:
    """``Initializing a V1 LLM engine (vX) with config: k=v, ...``: the settings it names that this reader knows."""
    found.top["version"] = version
    found.top["engine_starts"] = found.top.get("engine_starts", 0) + 1
    for name, raw in parse_pairs(text).items():
        if name in SETTINGS or name in STATED:
            state(found, name, raw)
