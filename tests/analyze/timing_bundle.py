"""Trial bundles (tests/analyze/bundle.py) whose run records carry the engine's
timing histograms, as the collector journals them."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.analyze.bundle import G, flat, write_bundle, write_decision

__all__ = ["G", "flat", "write_bundle", "write_decision", "add_histograms", "journals"]


def journals(bundle: Path) -> list[Path]:
    return sorted((bundle / "journals").glob("*.jsonl"))


def add_histograms(
    bundle: Path, engine_less_s: float = 0.003, edit: Callable[[int, dict[str, Any], list[dict[str, Any]]], None] | None = None
) -> None:
    """Give every run record counters whose histogram deltas say the engine saw each of the run's ok
    requests ``engine_less_s`` shorter than the client; ``edit(seq, run_record, requests)`` changes them."""
    for seq, path in enumerate(journals(bundle), start=1):
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        for rec in lines:
            if rec["type"] != "run":
                continue
            reqs = [r for r in lines if r["type"] == "request" and r["run"] == rec["run"] and not r["warmup"]]
            ok = [r for r in reqs if r["ok"]]
            counters: dict[str, list[float]] = {
                "requests": [100.0, 100.0 + len(ok)],
                "prompt_tokens": [0.0, float(sum(r["prompt_tokens"] for r in ok))],
                "generation_tokens": [0.0, float(sum(r["completion_tokens"] for r in ok))],
            }
            for metric, name in (("ttft_s", "ttft"), ("e2e_s", "e2e")):
                have = [r[metric] for r in ok if r.get(metric) is not None]
                counters[f"{name}_seconds_sum"] = [50.0, 50.0 + math.fsum(have) - engine_less_s * len(have)]
                counters[f"{name}_seconds_count"] = [100.0, 100.0 + len(have)]
            rec["counters"] = counters
            if edit:
                edit(seq, rec, reqs)
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
