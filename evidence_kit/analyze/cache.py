"""Prefix-cache hits per group and pooled entry: what the engine said it served from its cache.

A request's ``cached_tokens`` is the engine's own report (``usage.prompt_tokens_details``); a
request without it says nothing, so it enters neither sum: the rate is over the requests that
reported, and how many did is stated beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..model import PHASES, Request
from .report import CacheHits

__all__ = ["cache_hits"]


def _pooled(requests: Sequence[Request]) -> CacheHits:
    ok = [r for r in requests if r.ok and not r.warmup]
    reporting = [r for r in ok if r.cached_tokens is not None and r.prompt_tokens is not None]
    cached = sum(r.cached_tokens or 0 for r in reporting)
    prompt = sum(r.prompt_tokens or 0 for r in reporting)
    return CacheHits(
        requests=len(ok), reporting=len(reporting), cached_tokens=cached, prompt_tokens=prompt, hit_rate_pct=cached / prompt * 100 if prompt else None
    )


def cache_hits(per_phase: Mapping[str, list[list[Request]]]) -> dict[str, CacheHits] | None:
    """Phase -> the cached prompt tokens of its pooled ok timed requests; None when no request of the group
    reported any (an engine that does not say, or a journal from before the field)."""
    pooled: dict[str, CacheHits] = {phase: _pooled([r for rs in per_phase[phase] for r in rs]) for phase in PHASES}
    return pooled if any(p.reporting for p in pooled.values()) else None
