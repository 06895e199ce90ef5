"""Each arm of a trial at a glance, as ``collect`` reports it when the trial is done.

Before anyone runs ``analyze``: did every arm run its timed requests, what were its
latencies, which of its checks warned. Computed by the code the analysis uses; every
group of the arm pooled, so these figures mix groups and judge nothing (the decision
reads the groups one by one, :func:`.groups.group_results`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.evidence import TrialEvidence
from .groups import pooled_statistics
from .report import Pooled

__all__ = ["CollectedArm", "collected_arms"]


@dataclass(frozen=True)
class CollectedArm:
    """One arm's timed requests (completed, failed, planned), its E2E and TTFT over every group,
    and the warning-level checks it did not pass."""

    seq: int
    arm: str
    phase: str
    ok: int
    failed: int
    planned: int
    e2e: Pooled
    ttft: Pooled
    warnings: tuple[str, ...]


def collected_arms(evidence: TrialEvidence) -> list[CollectedArm]:
    """Every arm of the trial, in run order."""
    planned = evidence.trial.workload.planned_per_arm
    out = []
    for arm in evidence.arms:
        timed = arm.timed
        ok = sum(r.ok for r in timed)
        warned = tuple(dict.fromkeys(c.name for c in arm.checks if c.level == "warning" and not c.ok))
        out.append(
            CollectedArm(
                seq=arm.ref.seq,
                arm=arm.ref.arm,
                phase=arm.ref.phase,
                ok=ok,
                failed=len(timed) - ok,
                planned=planned,
                e2e=pooled_statistics(timed, "e2e_s"),
                ttft=pooled_statistics(timed, "ttft_s"),
                warnings=warned,
            )
        )
    return out
