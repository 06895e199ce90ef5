"""The telemetry summary of one arm: extremes over its sampled series (pure, no I/O).

The collector writes this summary into each journal's footer as it ends the arm;
``analyze`` recomputes it from the ``telemetry/`` samples, so the pages show the
recomputed figures and a footer that disagrees with its own samples is a finding.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

__all__ = ["telemetry_summary"]

Sample = dict[str, Any]


def _extreme(samples: Sequence[Sample], pick: Callable[[Sample], Iterable[Any]], fn: Callable[..., Any]) -> Any:
    values = [v for s in samples for v in pick(s) if v is not None]
    return fn(values) if values else None


def _engine(key: str) -> Callable[[Sample], list[Any]]:
    return lambda s: [(s.get("engine") or {}).get(key)]


def _gpus(key: str) -> Callable[[Sample], list[Any]]:
    return lambda s: [g.get(key) for g in s.get("gpus") or ()]


def _section(name: str, key: str) -> Callable[[Sample], list[Any]]:
    return lambda s: [(s.get(name) or {}).get(key)]


def telemetry_summary(samples: Sequence[Sample]) -> dict[str, Any]:
    """Maxima and minima over the samples; ``None`` (absent) for a source never seen.

    ``oom_kills`` counts the cgroup's OOM kills since the first sample that saw the
    cgroup; ``gpu`` says whether any sample had GPU rows (``nvidia-smi`` present).
    """
    oom_start = next(((s["cgroup"] or {}).get("oom_kills") for s in samples if s.get("cgroup")), None)
    oom_now = _extreme(samples, _section("cgroup", "oom_kills"), max)
    return {
        "samples": len(samples),
        "max_running": _extreme(samples, _engine("running"), max),
        "max_waiting": _extreme(samples, _engine("waiting"), max),
        "max_kv_usage": _extreme(samples, _engine("kv_usage"), max),
        "gpu": "present" if any(s.get("gpus") for s in samples) else "absent",
        "min_gpu_free_mib": _extreme(samples, _gpus("memory_free"), min),
        "max_gpu_used_mib": _extreme(samples, _gpus("memory_used"), max),
        "max_gpu_power_w": _extreme(samples, _gpus("power_draw"), max),
        "max_process_rss_bytes": _extreme(samples, _section("process", "rss_bytes"), max),
        "max_cgroup_memory_bytes": _extreme(samples, _section("cgroup", "memory_bytes"), max),
        "cgroup_peak_memory_bytes": _extreme(samples, _section("cgroup", "peak_memory_bytes"), max),
        "oom_kills": None if oom_now is None else int(oom_now - (oom_start or 0)),
    }
