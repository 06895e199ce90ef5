"""The kinds of engine a trial measures; each real kind is read in its own dialect (``dialects.py``).

A vocabulary of its own, below ``trial.py`` and ``texts.py`` both: a trial declares one of these
words, and the collector's sentences name it (``engine_kind "llama.cpp"``), so the sentences'
vocabulary takes every kind from here.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["ENGINE_KINDS", "EngineKind"]

EngineKind = Literal["vllm", "sglang", "llama.cpp", "openai-compatible", "simulated"]
ENGINE_KINDS: tuple[str, ...] = get_args(EngineKind)
