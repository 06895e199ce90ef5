"""A trial bundle from explicit per-arm, per-run values: the evidence writer of the analysis's edge cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evidence_kit.canonical import canonical_json

__all__ = ["G", "flat", "write_bundle", "write_decision"]

G = (8192, 1)  # the one group most cases use


def flat(value: float, runs: int = 3, requests: int = 4) -> dict[tuple[int, int], list[list[Any]]]:
    """One group whose every request took ``value`` seconds."""
    return {G: [[value] * requests for _ in range(runs)]}


def write_bundle(
    folder: Path,
    trial_id: str,
    design: str,
    values: list[dict[tuple[int, int], list[list[Any]]]],
    *,
    rule: dict[str, Any] | None = None,
    repetitions: int | None = None,
    requests_per_run: int | None = None,
) -> Path:
    """``values[seq - 1][(input, concurrency)]`` is one arm's runs in repetition order, each run its
    requests' e2e seconds: a float, ``None`` for a failed request or a dict of request fields."""
    rule = rule or {"metric": "e2e_s", "statistic": "median", "min_improvement": 0.10}
    arms = []
    for seq, letter in enumerate(design, start=1):
        phase = "before" if seq == 1 else "candidate" if letter == "B" else "restored"
        arms.append(("original" if letter == "A" else "cand", "control" if letter == "A" else "candidate", phase))
    blocks = [sum(a[2] == arm[2] for a in arms[: i + 1]) for i, arm in enumerate(arms)]
    groups = list(values[0])
    first = values[0][groups[0]]
    trial = {
        "schema": "evidence-kit/trial/v1",
        "trial_id": trial_id,
        "title": f"adversary {trial_id}",
        "engine_kind": "simulated",
        "decision_rule": rule,
        "workload": {
            "input_nominal": sorted({g[0] for g in groups}),
            "concurrency": sorted({g[1] for g in groups}),
            "repetitions": repetitions or len(first),
            "requests_per_run": requests_per_run or max(len(r) for r in first),
            "max_tokens": 100,
            "temperature": 0,
            "warmup_requests": 0,
        },
        "arms": [
            {
                "seq": s,
                "arm": a,
                "role": r,
                "phase": p,
                "journal": f"journals/{s:02d}-{a}-{p}.jsonl",
                **({} if design == "ABA" else {"block": blocks[s - 1]}),
            }
            for s, (a, r, p) in enumerate(arms, start=1)
        ],
    }
    bundle = Path(folder) / trial_id
    (bundle / "journals").mkdir(parents=True, exist_ok=True)
    (bundle / "trial.json").write_bytes(canonical_json(trial, sort_keys=False, ascii_only=True))
    for s, (a, _, p) in enumerate(arms, start=1):
        lines: list[dict[str, Any]] = [
            {
                "type": "header",
                "schema": "evidence-kit/journal/v1",
                "trial_id": trial_id,
                "arm": a,
                "phase": p,
                "seq": s,
                "started_at": "2026-01-01T00:00:00Z",
                "engine": {"kv_token_slots": 1000},
            },
            {"type": "gate", "name": "smoke", "target": "direct", "ok": True},
        ]
        n = 0
        for (inp, conc), runs in values[s - 1].items():
            for rep, run in enumerate(runs, start=1):
                rid = f"r{rep}-{inp}-c{conc}"
                ok = 0
                for i, v in enumerate(run):
                    rec: dict[str, Any] = {
                        "type": "request",
                        "run": rid,
                        "repetition": rep,
                        "input_nominal": inp,
                        "concurrency": conc,
                        "index": i,
                        "warmup": False,
                        "prompt_tokens": inp - 100,
                        "completion_tokens": 100,
                    }
                    if v is None:
                        rec.update(ok=False, error="HTTP 500")
                    elif isinstance(v, dict):
                        rec.update(ok=True, error=None, **v)
                    else:
                        rec.update(ok=True, error=None, e2e_s=v, ttft_s=v / 10, ttft_content_s=v / 5)
                    ok += rec["ok"]
                    lines.append(rec)
                    n += 1
                lines.append(
                    {
                        "type": "run",
                        "run": rid,
                        "repetition": rep,
                        "input_nominal": inp,
                        "concurrency": conc,
                        "requests": len(run),
                        "ok": ok,
                        "reconciled": True,
                    }
                )
        lines.append({"type": "footer", "ended_at": "2026-01-01T01:00:00Z", "requests": n, "timed_requests": n})
        (bundle / f"journals/{s:02d}-{a}-{p}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return bundle


def write_decision(folder: Path, trial_ids: list[str], decision_id: str = "2026-01-01-adversary") -> Path:
    (Path(folder) / "decision.toml").write_text(
        f'id = "{decision_id}"\ndate = "2026-01-01"\ntitle = "adversary"\ntrials = [{", ".join(json.dumps(t) for t in trial_ids)}]\n'
    )
    return Path(folder)
