"""Guardrails on a metric present in only part of an arm, and blocked_by naming an arm's block."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import G, write_bundle

RULE = {
    "metric": "e2e_s",
    "statistic": "median",
    "min_improvement": 0.10,
    "guardrails": [{"metric": "ttft_content_s", "statistic": "p90", "max_regression": 0.05}],
}


def _req(e2e: float, content: float | None) -> dict[str, Any]:
    return {"e2e_s": e2e, "ttft_s": e2e / 10 if content is None else min(e2e / 10, content), "ttft_content_s": content}


def test_guardrail_on_content_missing_in_most_candidate_requests_blocks(tmp_path: Path) -> None:
    control = {G: [[_req(1.0, 0.5)] * 4 for _ in range(3)]}
    candidate = {G: [[_req(0.5, None)] * 3 + [_req(0.5, 0.1)] for _ in range(3)]}
    trial = analyze(load_trial(write_bundle(tmp_path, "t", "ABA", [control, candidate, control], rule=RULE))).trials[0]
    assert trial.outcome != "promote"
    assert not trial.groups[0].guardrails[0].checked
    assert any("carry its metric less often" in reason for reason in trial.blocked_by), trial.blocked_by


def test_blocked_by_names_the_block_of_a_failed_gate(tmp_path: Path) -> None:
    values = [{G: [[1.0 if c == "A" else 0.5] * 4 for _ in range(3)]} for c in "ABABA"]
    bundle = write_bundle(tmp_path, "t", "ABABA", values)
    journal = bundle / "journals" / "04-cand-candidate.jsonl"
    journal.write_text(
        journal.read_text().replace('"name": "smoke", "target": "direct", "ok": true', '"name": "smoke", "target": "direct", "ok": false')
    )
    trial = analyze(load_trial(bundle)).trials[0]
    assert any("candidate 2:smoke" in reason for reason in trial.blocked_by), trial.blocked_by
