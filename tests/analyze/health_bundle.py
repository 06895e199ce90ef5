"""A/B/A bundles whose run records carry client health, for the client-health edge cases."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.analyze.bundle import flat, write_bundle, write_decision

__all__ = ["process", "health_bundle", "refuse_constant"]


def process(**fields: Any) -> dict[str, Any]:
    """A healthy process record (what a collector writes at concurrency 1), fields overridden."""
    return {
        "cpu_s": 0.1,
        "loop_cpu_s": 0.1,
        "loop_lag_interval_s": 0.01,
        "loop_lag_samples": 100,
        "loop_lag_p50_s": 0.001,
        "loop_lag_max_s": 0.01,
        **fields,
    }


def health_bundle(
    folder: Path,
    *,
    client: Callable[[int, dict[str, Any]], dict[str, Any] | None],
    request: Callable[[int, dict[str, Any]], None] | None = None,
    trial_client: dict[str, Any] | None = None,
    candidate_wins: bool = True,
) -> Path:
    """A decision folder with one A/B/A trial ``t`` the candidate wins (20% faster, every run; its requests
    one at a time, as their concurrency 1 says), whose
    run records get ``client(seq, run_record)`` and whose requests are edited by ``request(seq, record)``."""
    # Requests 0.25 s (the candidate's 0.2 s) long, sent 0.25 s apart: one on the wire at a time, as the
    # runs' concurrency 1 says, each run spanning 0.95-1.0 s (a collector's wall time of 1 s holds it).
    cand = 0.2 if candidate_wins else 0.25
    bundle = write_bundle(folder, "t", "ABA", [flat(0.25, runs=5), flat(cand, runs=5), flat(0.25, runs=5)])
    for path in sorted((bundle / "journals").glob("*.jsonl")):
        seq = int(path.name[:2])
        out = []
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record["type"] == "request":
                record.setdefault("t_send_s", 10.0 * record["repetition"] + 0.25 * record["index"])
                record.setdefault("send_wait_s", 0.0005)
                if request is not None:
                    request(seq, record)
            if record["type"] == "run":
                health = client(seq, record)
                if health is not None:
                    record["client"] = health
            out.append(json.dumps(record))
        path.write_text("\n".join(out) + "\n")
    if trial_client is not None:
        trial = json.loads((bundle / "trial.json").read_text())
        trial["client"] = trial_client
        (bundle / "trial.json").write_text(json.dumps(trial))
    write_decision(folder, ["t"])
    return Path(folder)


def refuse_constant(constant: str) -> None:
    raise ValueError(f"not JSON: {constant}")
