"""A decision whose candidate wins on end-to-end latency but breaks a guardrail, for the pages and the auditor.

The reference reconstruction's cache-layout trial, with the candidate 16 % faster at ~6K/C1 (a win the
intervals resolve) and 10 % faster at ~25K/C1 with its requests spread five times as far (a point-estimate
win within the noise), its time to first token 30 % longer in every request, and two guardrails declared in
its rule: p90 time to first token may regress by at most 10 % (held at ~6K/C1, breached and resolvable
elsewhere), median output tokens may change by at most 5 % (breached: the candidate writes 40 more tokens,
within the noise of this data). The trial therefore wins two groups and cannot be promoted.
"""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.canonical import canonical_json
from evidence_kit.examples.reference import REFERENCE_TRIALS, write_trial_bundle

__all__ = ["GUARDED_ID", "GUARDRAILS", "write_guarded_decision"]

GUARDED_ID = "2026-11-02-guarded-reconstruction"
GUARDRAILS = [
    {"metric": "ttft_s", "statistic": "p90", "max_regression": 0.10},
    {"metric": "completion_tokens", "statistic": "median", "max_change": 0.05},
]
TTFT_FACTOR = 1.3
NOISY = (32768, 1)  # the candidate's requests here spread SPREAD times as far from their median
SPREAD = 5


def write_guarded_decision(folder: Path) -> Path:
    """Write the guarded decision (``decision.toml`` + one trial bundle, ``cache-layout``) into ``folder``."""
    spec = dict(REFERENCE_TRIALS["cache-layout"], title="Cache-layout trial with guardrails (reconstructed; the candidate altered)")
    e2e = dict(spec["e2e"])
    e2e[(8192, 1)] = (1.735, 1.45, 1.761)
    e2e[NOISY] = (4.129, 3.70, 4.210)
    spec["e2e"] = e2e
    bundle = write_trial_bundle(folder, "cache-layout", spec)
    trial_path = bundle / "trial.json"
    trial = json.loads(trial_path.read_text())
    trial["decision_rule"]["guardrails"] = GUARDRAILS
    trial_path.write_bytes(canonical_json(trial, sort_keys=False, ascii_only=True))
    for journal in (bundle / "journals").glob("*-candidate.jsonl"):
        lines = []
        for line in journal.read_text().splitlines():
            record = json.loads(line)
            if record.get("type") == "request" and not record["warmup"]:
                record["ttft_s"] = round(record["ttft_s"] * TTFT_FACTOR, 3)
                if (record["input_nominal"], record["concurrency"]) == NOISY:
                    middle = e2e[NOISY][1]
                    record["e2e_s"] = round(middle + SPREAD * (record["e2e_s"] - middle), 3)
            lines.append(json.dumps(record, separators=(",", ":")))
        journal.write_text("\n".join(lines) + "\n")
    (folder / "decision.toml").write_text(
        f'id = "{GUARDED_ID}"\n'
        'date = "2026-11-02"\n'
        'title = "Cache-layout candidate with guardrails (reconstructed): a win that a guardrail blocks"\n'
        'trials = ["cache-layout"]\n'
    )
    return folder
