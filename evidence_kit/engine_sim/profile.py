"""Engine profiles: what the simulated engine is, how big its KV pool is and how fast it runs.

A profile is a TOML file (three ship under ``profiles/``) validated by :class:`Profile`.
Sizes follow vLLM's own arithmetic: a fixed KV byte budget divided by the bytes one token
needs (target KV plus, for a separate draft model, the draft's KV) gives whole blocks of
``block_size`` tokens; the token slots are blocks × block size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import BadInput
from ..read.files import read_toml_model

__all__ = [
    "Identity",
    "Scheduler",
    "KvCache",
    "Timing",
    "Speculation",
    "Output",
    "Faults",
    "Profile",
    "PROFILE_DIR",
    "SHIPPED_PROFILES",
    "load_profile",
    "FAULT_KINDS",
]

PROFILE_DIR = Path(__file__).parent / "profiles"
SHIPPED_PROFILES = ("original", "layout-candidate", "dflash-candidate")
FAULT_KINDS = ("http-500", "http-503", "drop", "stall", "malformed", "wrong-usage", "wrong-cached")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Identity(_Section):
    """The private identity a real engine reveals; every default says it is simulated."""

    served_model_name: str = "sim-org/sim-model-7b-simulated"
    model_path: str = "/models/sim-org/sim-model-7b-simulated"
    revision: str = "51m0000000000000000000000000000000simulated"
    image: str = "registry.simulated.invalid/sim-vllm:0.11.0-simulated"
    gpu_uuids: list[str] = Field(
        default_factory=lambda: [
            "GPU-00000000-5151-4000-8000-51m000000000",
            "GPU-00000000-5151-4000-8000-51m000000001",
        ]
    )
    host: str = "sim-host-01.simulated.invalid"
    container_id: str = "51m0c0n7a1ner000000000000000000000000000000000000000000simulated"
    engine_version: str = "0.11.0+simulated"


class Scheduler(_Section):
    """Continuous-batching limits, as vLLM's ``--max-num-seqs`` and ``--max-model-len``."""

    max_num_seqs: int = Field(default=8, ge=1)
    max_model_len: int = Field(default=10240, ge=16)
    block_size: int = Field(default=16, ge=1)


class KvCache(_Section):
    """A fixed KV byte budget shared by every cache that lives in it."""

    budget_bytes: int = Field(ge=1)
    dtype: str = "fp8"
    bytes_per_token: int = Field(ge=1, description="target model KV bytes for one token")
    prefix_caching: bool = Field(
        default=False, description="keep full prompt blocks cached after their request (vLLM's --enable-prefix-caching; engine_sim/prefix_cache.py)"
    )


class Timing(_Section):
    """Model seconds (before the time scale): prefill grows with input, decode with batch (see ``steps``)."""

    prefill_base_s: float = Field(default=0.01, ge=0)
    prefill_per_token_s: float = Field(default=0.00004, ge=0)
    decode_base_s: float = Field(default=0.010, ge=0, description="a decode pass's memory time for the weights")
    decode_per_seq_s: float = Field(default=0.0015, ge=0, description="a decode pass's memory time per running sequence (its KV)")
    verify_per_token_s: float = Field(default=0.00004, ge=0, description="a decode pass's compute time per scored token")
    drift: float = Field(default=0.0, ge=0, le=0.2, description="largest slowdown of a busy period (0.03: up to 3%)")
    drift_period_s: float = Field(default=2.0, gt=0, description="modelled busy seconds between drift draws")


class Speculation(_Section):
    """Speculative decoding: ``k`` drafted tokens per step, each accepted in turn with a rate."""

    method: Literal["none", "mtp", "draft_model"] = "none"
    k: int = Field(default=0, ge=0, le=16)
    acceptance_rate: float = Field(default=0.0, ge=0, le=1)
    draft_step_s: float = Field(default=0.0, ge=0, description="model seconds per draft pass (k passes a step)")
    draft_model: str = ""
    draft_kv_dtype: str = ""
    draft_kv_bytes_per_token: int = Field(default=0, ge=0, description="draft KV bytes sharing the pool")

    @property
    def enabled(self) -> bool:
        return self.method != "none" and self.k > 0


class Output(_Section):
    """Natural output length: seeded, prompt-dependent, around these means."""

    reasoning_tokens_mean: int = Field(default=96, ge=0)
    content_tokens_mean: int = Field(default=48, ge=1)
    spread: float = Field(default=0.35, ge=0, le=1)
    reasoning_field: Literal["reasoning", "reasoning_content"] = "reasoning"


class Faults(_Section):
    """Fault rates (0..1, spread exactly: rate × n faults in n requests) and the stall length."""

    http_500: float = Field(default=0.0, ge=0, le=1)
    http_503: float = Field(default=0.0, ge=0, le=1)
    drop: float = Field(default=0.0, ge=0, le=1)
    stall: float = Field(default=0.0, ge=0, le=1)
    malformed: float = Field(default=0.0, ge=0, le=1)
    wrong_usage: float = Field(default=0.0, ge=0, le=1)
    wrong_cached: float = Field(
        default=0.0, ge=0, le=1, description="usage's cached_tokens one token off the prefix-cache counters (with prefix caching on)"
    )
    metrics_503: float = Field(default=0.0, ge=0, le=1, description="rate of /metrics scrapes answered 503")
    stall_seconds: float = Field(default=30.0, ge=0, description="real seconds, not scaled")

    def rates(self) -> dict[str, float]:
        """Rate per fault kind, named as the ``X-Sim-Fault`` header names them."""
        return {kind: getattr(self, kind.replace("-", "_")) for kind in FAULT_KINDS}


class Profile(_Section):
    """One simulated engine configuration."""

    name: str
    description: str = ""
    seed: int = 0
    identity: Identity = Field(default_factory=Identity)
    scheduler: Scheduler = Field(default_factory=Scheduler)
    kv_cache: KvCache
    timing: Timing = Field(default_factory=Timing)
    speculation: Speculation = Field(default_factory=Speculation)
    output: Output = Field(default_factory=Output)
    faults: Faults = Field(default_factory=Faults)
    dialect: Literal["vllm", "sglang", "llama.cpp"] = Field(
        default="vllm", description="the engine whose /metrics names (and capacity log line) the simulator speaks"
    )

    @model_validator(mode="after")
    def _pool_holds_one_full_request(self) -> Profile:
        # vLLM refuses to start when one max_model_len request cannot fit in the KV pool.
        if self.token_slots < self.scheduler.max_model_len:
            raise ValueError(
                f"the KV pool holds {self.token_slots} tokens, less than scheduler.max_model_len "
                f"({self.scheduler.max_model_len}); raise kv_cache.budget_bytes or lower max_model_len"
            )
        return self

    @property
    def bytes_per_token(self) -> int:
        """KV bytes one token costs: the target's plus, with a draft model, the draft's."""
        return self.kv_cache.bytes_per_token + self.speculation.draft_kv_bytes_per_token

    @property
    def num_gpu_blocks(self) -> int:
        return self.kv_cache.budget_bytes // (self.bytes_per_token * self.scheduler.block_size)

    @property
    def token_slots(self) -> int:
        """The KV pool in tokens, as vLLM logs "KV cache size: N tokens"."""
        return self.num_gpu_blocks * self.scheduler.block_size


def load_profile(name_or_path: str | Path) -> Profile:
    """A shipped profile by name, or a profile TOML file by path (errors name file and line)."""
    text = str(name_or_path)
    if text in SHIPPED_PROFILES:
        path = PROFILE_DIR / f"{text}.toml"
    else:
        path = Path(text)
        if not path.exists() and path.suffix == "" and "/" not in text:
            raise BadInput(f"unknown profile {text!r} (shipped: {', '.join(SHIPPED_PROFILES)}; or a .toml file)")
    return read_toml_model(path, Profile)
