"""Goodput and achieved arrival rate per group and arm (pure, no I/O).

A timed request is *good* when it succeeded and met every service-level objective the
trial declares (``[slo]``: ``ttft_ms``, ``tpot_ms``, ``e2e_ms``), at or below each bound:
DistServe's definition (Zhong et al., OSDI 2024) and vLLM bench serve's ``--goodput``,
whose time per output token is ``(e2e - ttft) / (output tokens - 1)``, 0 for one token
or none. A failed request is never good: the share counts every timed request sent.

Per group and pooled entry: the *share* of good requests (the decision metric ``goodput``,
judged like a latency but higher is better, its run-level interval drawn by the same
bootstrap over each run's 0/1 values), and the *good-request rate*: good requests per
second of the runs' spans (each from its first send to its last end), as vLLM's
``Request goodput (req/s)``. An open-loop group also gets its *achieved rate*: requests
started per second, ``sum(n_i - 1) / sum(span of sends_i)`` over its runs (each run's
``(n - 1) / (last send - first send)``, exact for equal gaps).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.journal import Request
from ..model.trial import Slo
from .report import GroupLoad

__all__ = ["is_good", "good_values", "tpot_s", "group_load"]


def tpot_s(r: Request) -> float | None:
    """Time per output token after the first, seconds (vLLM's TPOT); 0 for one output token or none;
    None without the times."""
    if r.e2e_s is None or r.ttft_s is None:
        return None
    tokens = r.completion_tokens or 0
    return (r.e2e_s - r.ttft_s) / (tokens - 1) if tokens > 1 else 0.0


def is_good(r: Request, slo: Slo) -> bool:
    """The request succeeded and met every declared SLO (a time it lacks meets none)."""
    if not r.ok:
        return False
    checks = ((slo.ttft_ms, r.ttft_s), (slo.tpot_ms, tpot_s(r)), (slo.e2e_ms, r.e2e_s))
    return all(bound is None or (value is not None and value * 1000 <= bound) for bound, value in checks)


def good_values(requests: Sequence[Request], slo: Slo) -> list[float]:
    """1.0 for each good timed request, 0.0 for every other (failed ones included)."""
    return [1.0 if is_good(r, slo) else 0.0 for r in requests if not r.warmup]


def _by_run(requests: Sequence[Request]) -> list[list[Request]]:
    runs: dict[tuple[int, str], list[Request]] = {}
    for r in requests:
        if not r.warmup:
            runs.setdefault((r.repetition, r.run), []).append(r)
    return [runs[k] for k in sorted(runs)]


def _span(times: Sequence[tuple[float, float]]) -> float:
    return max(end for _, end in times) - min(start for start, _ in times) if times else 0.0


def group_load(arms: Sequence[Sequence[Request]], slo: Slo | None, open_loop: bool) -> GroupLoad:
    """One pooled entry's goodput (with ``slo``) and achieved arrival rate (``open_loop``)."""
    runs = [run for requests in arms for run in _by_run(requests)]
    timed = [r for run in runs for r in run]
    busy = 0.0  # the runs' spans, first send to last end
    started = 0.0  # sends after each run's first
    sending = 0.0  # the spans of the runs' sends
    for run in runs:
        ends = [(r.t_send_s, r.t_send_s + (r.e2e_s or 0.0)) for r in run if r.t_send_s is not None]
        busy += _span(ends)
        sends = [start for start, _ in ends]
        if len(sends) > 1:
            started += len(sends) - 1
            sending += max(sends) - min(sends)
    good = int(sum(good_values(timed, slo))) if slo is not None else None
    return GroupLoad(
        requests=len(timed),
        good=good,
        share=None if good is None or not timed else good / len(timed),
        good_rate_per_s=None if good is None or busy <= 0 else good / busy,
        achieved_rate_per_s=(started / sending if sending > 0 else None) if open_loop else None,
    )
