"""The telemetry summary of one arm: extremes over its sampled series (pure, no I/O).

The collector writes this summary into each journal's footer as it ends the arm;
``analyze`` recomputes it from the ``telemetry/`` samples, so the pages show the
recomputed figures and a footer that disagrees with its own samples is a finding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from ..model.telemetry import TelemetrySample, TelemetrySummary

__all__ = ["telemetry_summary"]

N = TypeVar("N", int, float)


def _extreme(values: Iterable[N | None], fn: Callable[[list[N]], N]) -> N | None:
    present = [v for v in values if v is not None]
    return fn(present) if present else None


def telemetry_summary(samples: Sequence[TelemetrySample]) -> TelemetrySummary:
    """Maxima and minima over the samples; ``None`` (absent) for a source never seen.

    ``oom_kills`` counts the cgroup's OOM kills since the first sample that saw the
    cgroup; ``gpu`` says whether any sample had GPU rows (``nvidia-smi`` present).
    """
    engines = [s.engine for s in samples if s.engine is not None]
    gpus = [g for s in samples for g in s.gpus or ()]
    processes = [s.process for s in samples if s.process is not None]
    cgroups = [s.cgroup for s in samples if s.cgroup is not None]
    oom_start = cgroups[0].oom_kills if cgroups else None
    oom_now = _extreme((c.oom_kills for c in cgroups), max)
    return TelemetrySummary(
        samples=len(samples),
        max_running=_extreme((e.running for e in engines), max),
        max_waiting=_extreme((e.waiting for e in engines), max),
        max_kv_usage=_extreme((e.kv_usage for e in engines), max),
        gpu="present" if any(s.gpus for s in samples) else "absent",
        min_gpu_free_mib=_extreme((g.memory_free for g in gpus), min),
        max_gpu_used_mib=_extreme((g.memory_used for g in gpus), max),
        max_gpu_power_w=_extreme((g.power_draw for g in gpus), max),
        max_process_rss_bytes=_extreme((p.rss_bytes for p in processes), max),
        max_cgroup_memory_bytes=_extreme((c.memory_bytes for c in cgroups), max),
        cgroup_peak_memory_bytes=_extreme((c.peak_memory_bytes for c in cgroups), max),
        oom_kills=None if oom_now is None else oom_now - (oom_start or 0),
    )
