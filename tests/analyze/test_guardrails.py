"""Guardrails fail closed: one that cannot be checked blocks a promotion like one that is breached."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.canonical import canonical_json
from evidence_kit.examples.reference import REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.present import guardrail_rows
from evidence_kit.read import load_trial


def _winning_bundle(tmp_path: Path, guardrail: dict, strip_candidate: str | None = None) -> Path:
    spec = dict(REFERENCE_TRIALS["cache-layout"], title="guarded")
    spec["e2e"] = {**spec["e2e"], (8192, 1): (1.735, 1.40, 1.761)}  # a clear win at ~6K/C1
    bundle = write_trial_bundle(tmp_path / "t", "t", spec)
    trial = json.loads((bundle / "trial.json").read_text())
    trial["decision_rule"]["guardrails"] = [guardrail]
    (bundle / "trial.json").write_bytes(canonical_json(trial, sort_keys=False, ascii_only=True))
    if strip_candidate:
        for journal in (bundle / "journals").glob("*-candidate.jsonl"):
            records = [json.loads(line) for line in journal.read_text().splitlines()]
            for record in records:
                if record.get("type") == "request":
                    record[strip_candidate] = None
            journal.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return bundle


def test_a_held_guardrail_lets_the_win_promote(tmp_path: Path) -> None:
    trial = analyze(load_trial(_winning_bundle(tmp_path, {"metric": "ttft_content_s", "max_regression": 0.5}))).trials[0]
    assert trial.wins >= 1 and trial.outcome == "promote"
    assert all(r.checked and not r.breached for g in trial.groups for r in g.guardrails)


def test_a_guardrail_whose_statistic_is_missing_blocks_the_promotion(tmp_path: Path) -> None:
    # The candidate's journals carry no visible-content TTFT: nothing shows it did not regress.
    bundle = _winning_bundle(tmp_path, {"metric": "ttft_content_s", "max_regression": 0.5}, strip_candidate="ttft_content_s")
    trial = analyze(load_trial(bundle)).trials[0]
    assert trial.wins >= 1 and trial.outcome == "no-promotion"
    assert not any(r.checked for g in trial.groups for r in g.guardrails)
    assert not any(g.verdict.guardrails_held for g in trial.groups)
    assert any("could not be checked" in reason for reason in trial.blocked_by), trial.blocked_by
    assert {row[-1] for row in guardrail_rows(trial)} == {"NOT CHECKED: the guarded statistic is missing or zero in an arm; it blocks"}
