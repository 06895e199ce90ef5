"""Findings: the rows and facts a page must call out by name, each from a stated rule."""

from __future__ import annotations

from ..model.phase import CONTROLS
from .report import Finding, TrialAnalysis

__all__ = ["findings_for", "REGRESSION_FRACTION_OF_THRESHOLD"]

# A candidate slower than *both* controls by at least half the rule's threshold is
# called out, even though the rule only asks about improvements.
REGRESSION_FRACTION_OF_THRESHOLD = 0.5


def findings_for(analysis: TrialAnalysis, threshold_pct: float) -> list[Finding]:
    """Wins, split verdicts, regressions, control drift, failures, unreconciled runs,
    failed gates, failed checks and warnings, and slots not restored — in that order."""
    metric = str(analysis.rule["metric"])
    out: list[Finding] = []
    for g in analysis.groups:
        by_control = {c.control: c for c in g.comparisons[metric]}
        values = {
            "improvement_vs_before_pct": by_control["before"].improvement_pct,
            "improvement_vs_restored_pct": by_control["restored"].improvement_pct,
        }
        if g.verdict.win:
            out.append(Finding(kind="win", group=g.label, values=values))
        elif g.verdict.split:
            out.append(Finding(kind="split-verdict", group=g.label, values=values))
        changes = [by_control[c].change_pct for c in CONTROLS]
        if all(c is not None and c >= threshold_pct * REGRESSION_FRACTION_OF_THRESHOLD for c in changes):
            out.append(
                Finding(
                    kind="regression",
                    group=g.label,
                    values={"change_vs_before_pct": changes[0], "change_vs_restored_pct": changes[1]},
                )
            )
        if g.verdict.drift_flagged:
            out.append(Finding(kind="control-drift", group=g.label, values={"drift_pct": g.verdict.control_drift_pct}))
    if analysis.failures:
        out.append(Finding(kind="failures", values={"count": len(analysis.failures)}))
    if analysis.runs_reconciled < analysis.runs_total:
        out.append(
            Finding(kind="unreconciled", values={"count": analysis.runs_total - analysis.runs_reconciled})
        )
    for arm in analysis.arms:
        for gate in arm.failed_gates:
            out.append(Finding(kind="gate-failed", values={"phase": arm.phase, "gate": gate}))
        for name, ok in sorted(arm.checks.items()):
            if not ok:
                out.append(Finding(kind="check-failed", values={"phase": arm.phase, "check": name}))
        for name, ok in sorted(arm.warnings.items()):
            if not ok:
                out.append(Finding(kind="check-warning", values={"phase": arm.phase, "check": name}))
    if analysis.slots.restored_matches_original is False:
        out.append(
            Finding(
                kind="slots-not-restored",
                values={"original": analysis.slots.original, "restored": analysis.slots.restored},
            )
        )
    return out
