"""Shared prefixes: every prompt of a group opens with one of a few shared prefixes (a hot system prompt),
at the group's concurrency or rate (docs/plan-file.md#shared-prefixes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..runs import RunSpec, request_record, send_all
from .base import Batch, WorkloadShape, numbered_keys, plain_bodies
from .open_loop import arrival_offsets

if TYPE_CHECKING:
    from ..plan import Plan, PlanWorkload
    from ..prompts import PromptBook
    from ..stages.context import ArmContext
    from ..stages.watch import EngineWatch

__all__ = ["SharedPrefix", "SHARED_PREFIX", "count_cache_hits"]

_NEED_PREFIX_TOKENS = ("prefixes", "prefix_inputs", "prime_prefixes")


def _sizes_text(sizes: list[int]) -> str:
    return ", ".join(map(str, sizes))


def _prefix_inputs_problem(value: list[int] | None, data: dict[str, Any]) -> str | None:
    if "input_nominal" not in data:
        return None  # input_nominal failed its own check, reported at its line
    sizes, prefix = data["input_nominal"] or [], data.get("prefix_tokens") or 0
    for n in value or []:
        if n not in sizes:
            return f"prefix_inputs lists {n}, which is not in input_nominal ({_sizes_text(sizes)})"
        if n <= prefix:
            return (
                f"prefix_inputs lists {n}, not above prefix_tokens ({prefix}): a prompt is its shared "
                "prefix and a unique suffix, so the prefix must be shorter"
            )
    if value is not None and len(set(value)) != len(value):
        return "prefix_inputs lists a size more than once"
    return None


def count_cache_hits(watch: EngineWatch, records: list[dict[str, Any]], own: float) -> None:
    """The prefix-cache check's counts: a prefix explains a hit up to its own end; one deep into the request's
    ``own`` words means this engine saw the whole prompt before (an earlier arm on an engine not restarted)."""
    reported = [r for r in records if r["ok"] and r.get("cached_tokens") is not None and r["prompt_tokens"]]
    watch.shared_reported += len(reported)
    watch.suffix_hits += sum(1 for r in reported if r["cached_tokens"] > r["prompt_tokens"] - own / 2)


class SharedPrefix(WorkloadShape):
    """``[workload] prefix_tokens`` and ``prefixes`` (with ``prefix_inputs``, the sizes that carry one): each run
    primed with one untimed request per prefix (unless ``prime_prefixes = false``), then sent as its loop says."""

    name = "shared-prefix"
    fields = ("prefix_tokens", *_NEED_PREFIX_TOKENS)
    shares_prefix = True

    def field_problem(self, name: str, value: Any, data: dict[str, Any]) -> str | None:
        if name == "prefix_tokens":
            sizes = data.get("input_nominal") or []
            shorter = [n for n in sizes if n <= (value or 0)]
            if value is not None and shorter and len(shorter) == len(sizes):
                return (
                    f"prefix_tokens ({value}) is not below any input_nominal ({_sizes_text(sizes)}): "
                    "a prompt is its shared prefix and a unique suffix, so the prefix must be shorter"
                )
            return None
        # Every problem of a plan is shown at once: a field that failed its own check is absent here, not unset.
        if value is not None and "prefix_tokens" in data and data["prefix_tokens"] is None:
            return f"{name} is set without prefix_tokens (the size of each shared prefix)"
        return _prefix_inputs_problem(value, data) if name == "prefix_inputs" else None

    def plan_problem(self, wl: PlanWorkload) -> str | None:
        if wl.prefix_tokens is not None and wl.prefixes is None:
            return "prefix_tokens is set without prefixes (how many distinct shared prefixes)"
        if wl.prefix_tokens is not None and wl.prefix_inputs is None:
            shorter = [n for n in wl.input_nominal or [] if n <= wl.prefix_tokens]
            if shorter:
                return (
                    f"prefix_tokens ({wl.prefix_tokens}) is not below input_nominal {shorter[0]}, and "
                    "every input size carries the prefix (prefix_inputs names those that do)"
                )
        return None

    def claims(self, plan: Plan, spec: RunSpec) -> bool:
        return plan.trace is None and plan.public_workload().prefixed(spec.input_nominal)

    def batch(self, plan: Plan, model: str, book: PromptBook, spec: RunSpec) -> Batch:
        keys = numbered_keys(spec, plan.workload.requests_per_run)
        prefixes: list[int | None] = [book.prefix_of(k) for k in keys]
        return Batch(keys, plain_bodies(plan.workload, model, book, spec, keys, prefixes), prefixes, arrival_offsets(plan, spec, len(keys)))

    async def prime(self, arm: ArmContext, book: PromptBook, spec: RunSpec, url: str) -> list[dict[str, Any]]:
        """One untimed request per shared prefix, one after another, before the run's scrape (so its counters
        hold the run alone): every run meets the prefixes cached, whatever the runs before it left in the
        cache. Journalled as warmup (``<run>/prime-<prefix>``), with the run, in the run's group (a journal
        holds no request of a group the workload lacks)."""
        s, wl = arm.setup, arm.setup.plan.workload
        if not s.plan.public_workload().prime_prefixes:
            return []
        prefixes: list[int | None] = list(range(book.prefixes or 0))
        keys = [f"{spec.id}/prime-{p}" for p in prefixes]
        bodies = plain_bodies(wl, arm.cfg.model, book, spec, keys, prefixes)
        outcomes = await send_all(arm.client, url, bodies, concurrency=1, clock=s.clock, timeout=wl.request_timeout_s)
        return [
            request_record(
                o,
                run="warmup",
                repetition=0,
                input_nominal=spec.input_nominal,
                concurrency=spec.concurrency,
                rate=spec.rate,
                index=i,
                warmup=True,
                key=k,
                t0=arm.t0,
                prefix=i,
            )
            for i, (o, k) in enumerate(zip(outcomes, keys))
        ]

    def after(self, watch: EngineWatch, book: PromptBook, spec: RunSpec, records: list[dict[str, Any]]) -> None:
        count_cache_hits(watch, records, book.own_tokens(spec.input_nominal))


SHARED_PREFIX = SharedPrefix()
