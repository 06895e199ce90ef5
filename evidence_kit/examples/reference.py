"""A decision folder that reproduces the reference page's published medians and slots.

The reference decision page (two A/B/A trials on real GPUs) publishes pooled
median E2E seconds per group and engine-reported KV token slots. This module
writes journals whose pooled medians are exactly those published values, so the
analysis engine can be checked against every figure the page states. The
journals are *reconstructed*, not measured: ``engine_kind`` is ``simulated`` and
every title says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..canonical import canonical_json

__all__ = ["REFERENCE_TRIALS", "write_reference_decision", "write_trial_bundle"]

GROUPS = [(8192, 1), (8192, 4), (32768, 1), (32768, 4)]
PROMPT_TOKENS = {8192: (6065, 6066, 6067, 6068), 32768: (25279, 25280, 25281)}

# Pooled median E2E seconds per group, (before, candidate, restored), as published.
REFERENCE_TRIALS: dict[str, dict[str, Any]] = {
    "cache-layout": {
        "title": "Cache-layout trial (reconstructed from the reference page's published medians)",
        "candidate": ("layout-candidate", "Layout candidate"),
        "slots": (1330579, 1844162, 1330579),
        "e2e": {
            (8192, 1): (1.735, 1.819, 1.761),
            (8192, 4): (5.222, 4.958, 4.672),
            (32768, 1): (4.129, 4.107, 4.210),
            (32768, 4): (11.355, 12.404, 11.494),
        },
    },
    "dflash": {
        "title": "DFlash trial (reconstructed from the reference page's published medians)",
        "candidate": ("dflash2-k3", "DFlash2 K3"),
        "slots": (1330579, 789904, 1330579),
        "e2e": {
            (8192, 1): (1.934, 1.830, 1.952),
            (8192, 4): (5.061, 4.962, 5.807),
            (32768, 1): (4.104, 4.195, 4.204),
            (32768, 4): (11.893, 12.007, 12.085),
        },
    },
}

GATES = ("smoke", "json", "needle", "tools", "streaming-tools", "tool-result")
REPETITIONS = 3
REQUESTS_PER_RUN = 4


def _spread(median_value: float) -> list[float]:
    """Twelve values whose ordinary median is exactly ``median_value`` (6th = 7th = it)."""
    low = [round(median_value * (1 - 0.015 * k), 3) for k in range(5, 0, -1)]
    high = [round(median_value * (1 + 0.02 * k), 3) for k in range(1, 6)]
    return low + [median_value, median_value] + high


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def _journal(trial_id: str, seq: int, arm: str, phase: str, slots: int, e2e: dict[tuple[int, int], float], candidate: bool) -> str:
    lines = [
        _line(
            {
                "type": "header",
                "schema": "evidence-kit/journal/v1",
                "trial_id": trial_id,
                "arm": arm,
                "phase": phase,
                "seq": seq,
                "started_at": f"2026-11-01T0{seq}:00:00Z",
                "engine": {"kv_token_slots": slots},
                "private": {"model": "example-org/example-model", "endpoint": "http://127.0.0.1:8000"},
            }
        )
    ]
    targets = ["direct", "routed"] if phase == "restored" else ["direct"]
    lines += [_line({"type": "gate", "name": g, "target": t, "ok": True, "detail": None}) for t in targets for g in GATES]
    total = 0
    for w in range(2):
        lines.append(
            _line(
                {
                    "type": "request",
                    "run": "warmup",
                    "repetition": 0,
                    "input_nominal": 8192,
                    "concurrency": 1,
                    "index": w,
                    "warmup": True,
                    "ok": True,
                    "error": None,
                    "prompt_tokens": 6066,
                    "completion_tokens": 300,
                    "e2e_s": 2.5,
                    "ttft_s": 0.5,
                    "ttft_content_s": 1.5,
                    "finish_reason": "stop",
                }
            )
        )
        total += 1
    values = {group: _spread(e2e[group]) for group in GROUPS}
    for rep in range(1, REPETITIONS + 1):
        for inp, conc in GROUPS:
            run = f"r{rep}-{inp}-c{conc}"
            for i in range(REQUESTS_PER_RUN):
                # Interleave so every run holds low, middle and high values.
                k = (i * REPETITIONS + rep - 1) % 12
                e2e_s = values[(inp, conc)][k]
                tokens = PROMPT_TOKENS[inp]
                lines.append(
                    _line(
                        {
                            "type": "request",
                            "run": run,
                            "repetition": rep,
                            "input_nominal": inp,
                            "concurrency": conc,
                            "index": i,
                            "warmup": False,
                            "ok": True,
                            "error": None,
                            "prompt_tokens": tokens[(rep + i) % len(tokens)],
                            "completion_tokens": 200 + 37 * k + (40 if candidate else 0),
                            "e2e_s": e2e_s,
                            "ttft_s": round(e2e_s * 0.08, 3),
                            "ttft_content_s": round(e2e_s * 0.6, 3),
                            "finish_reason": "stop",
                        }
                    )
                )
                total += 1
            lines.append(
                _line(
                    {
                        "type": "run",
                        "run": run,
                        "repetition": rep,
                        "input_nominal": inp,
                        "concurrency": conc,
                        "requests": REQUESTS_PER_RUN,
                        "ok": REQUESTS_PER_RUN,
                        "reconciled": True,
                    }
                )
            )
    if phase == "restored":
        for name in ("identity-equality", "readmission"):
            lines.append(_line({"type": "check", "name": name, "ok": True, "detail": None}))
    lines.append(_line({"type": "check", "name": "process-stable", "ok": True, "detail": None}))
    timed = REPETITIONS * len(GROUPS) * REQUESTS_PER_RUN
    lines.append(_line({"type": "footer", "ended_at": f"2026-11-01T0{seq}:30:00Z", "requests": total, "timed_requests": timed}))
    return "".join(lines)


def write_trial_bundle(
    folder: Path, trial_id: str, spec: dict[str, Any], *, promote_if: str = "any-group", design: str = "ABA", rule: dict[str, Any] | None = None
) -> Path:
    """Write one trial bundle from a spec shaped like a :data:`REFERENCE_TRIALS` entry (``rule``: fields added
    to its decision rule, such as ``{"statistics": 4}``).

    ``design`` spells the arms in run order (``ABA``, ``ABABA``, ``ABBA``: A the original, B the
    candidate); ``spec``'s medians and slots then hold one value per arm, in that order.
    """
    cand_arm, cand_label = spec["candidate"]
    arms = []
    for seq, letter in enumerate(design, start=1):
        phase = "before" if seq == 1 else "candidate" if letter == "B" else "restored"
        label = cand_label if letter == "B" else f"Original {phase}"
        arms.append(("original" if letter == "A" else cand_arm, "control" if letter == "A" else "candidate", phase, label))
    blocks = [sum(a[2] == arm[2] for a in arms[: i + 1]) for i, arm in enumerate(arms)]
    trial = {
        "schema": "evidence-kit/trial/v1",
        "trial_id": trial_id,
        "title": spec["title"],
        "engine_kind": "simulated",
        "decision_rule": {
            "metric": "e2e_s",
            "statistic": "median",
            "min_improvement": 0.10,
            "against": "both-controls",
            "promote_if": promote_if,
            **(rule or {}),
        },
        "workload": {
            "input_nominal": [8192, 32768],
            "concurrency": [1, 4],
            "repetitions": REPETITIONS,
            "requests_per_run": REQUESTS_PER_RUN,
            "max_tokens": 4096,
            "temperature": 0,
            "warmup_requests": 2,
        },
        "arms": [
            {
                "seq": seq,
                "arm": arm,
                "role": role,
                "phase": phase,
                "journal": f"journals/{seq:02d}-{arm}-{phase}.jsonl",
                "label": label,
                **({} if design == "ABA" else {"block": blocks[seq - 1]}),
            }
            for seq, (arm, role, phase, label) in enumerate(arms, start=1)
        ],
    }
    bundle = folder / trial_id
    (bundle / "journals").mkdir(parents=True, exist_ok=True)
    (bundle / "trial.json").write_bytes(canonical_json(trial, sort_keys=False, ascii_only=True))
    for seq, (arm, _, phase, _) in enumerate(arms, start=1):
        e2e = {group: spec["e2e"][group][seq - 1] for group in GROUPS}
        text = _journal(trial_id, seq, arm, phase, spec["slots"][seq - 1], e2e, phase == "candidate")
        (bundle / f"journals/{seq:02d}-{arm}-{phase}.jsonl").write_text(text)
    return bundle


def write_reference_decision(folder: Path) -> Path:
    """Write the reconstructed reference decision (``decision.toml`` + two trial bundles) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for trial_id, spec in REFERENCE_TRIALS.items():
        write_trial_bundle(folder, trial_id, spec)
    (folder / "decision.toml").write_text(
        'id = "2026-11-01-reference-reconstruction"\n'
        'date = "2026-11-01"\n'
        'title = "Cache-layout and DFlash scouts (reconstructed from the reference page): retain the current configuration"\n'
        'trials = ["cache-layout", "dflash"]\n\n'
        "[narrative]\n"
        'why_it_matters = "These journals are reconstructed from the medians the reference page published, '
        'so every figure the page states can be recomputed. They are not measurements."\n'
    )
    return folder
