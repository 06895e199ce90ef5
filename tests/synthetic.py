"""A/B/A trial evidence built in memory, for tests of the analysis that need no journal on disk."""

from __future__ import annotations

from typing import Any

from evidence_kit.model import PHASES, Header, Trial
from evidence_kit.model.evidence import ArmEvidence

LABELS = {"before": "original", "candidate": "candidate", "restored": "original"}


def synthetic_arms(trial_id: str, workload: dict[str, Any], decision_rule: dict[str, Any], **fields: Any) -> tuple[Trial, list[ArmEvidence]]:
    """A simulated trial of the three phases (``fields`` are more of ``trial.json``'s, e.g. ``slo``) and its
    arms, each with a header and no records yet: the test appends its requests and runs."""
    trial = Trial.model_validate(
        {
            "schema": "evidence-kit/trial/v1",
            "trial_id": trial_id,
            "title": trial_id.capitalize(),
            "engine_kind": "simulated",
            "decision_rule": decision_rule,
            **fields,
            "workload": workload,
            "arms": [
                {
                    "seq": seq,
                    "arm": LABELS[phase],
                    "role": "candidate" if phase == "candidate" else "control",
                    "phase": phase,
                    "journal": f"journals/0{seq}-{LABELS[phase]}-{phase}.jsonl",
                }
                for seq, phase in enumerate(PHASES, start=1)
            ],
        }
    )
    arms = []
    for ref in trial.arms:
        header = Header.model_validate(
            {
                "type": "header",
                "schema": "evidence-kit/journal/v1",
                "trial_id": trial_id,
                "arm": ref.arm,
                "phase": ref.phase,
                "seq": ref.seq,
                "started_at": "2026-12-01T00:00:00Z",
            }
        )
        arms.append(ArmEvidence(ref=ref, header=header, footer=None, sha256="", size=0))
    return trial, arms
