"""How the tables and sentences name a trial's arms: by phase, and by block where a phase has several."""

from __future__ import annotations

from ..analyze.findings import phase_blocks
from ..analyze.report import TrialAnalysis

__all__ = ["phase_labels", "arm_phases", "arm_label_map", "arm_labels"]


def phase_labels(trial: TrialAnalysis) -> dict[str, str]:
    """Phase -> the label the tables use ('Original before', candidate label, 'Original restored')."""
    return {
        "before": "Original before",
        "candidate": trial.candidate_label,
        "restored": "Original restored",
    }


def _blocks(trial: TrialAnalysis) -> dict[int, int | None]:
    """Arm seq -> its block (place among the arms of its phase) where its phase has several arms, else None."""
    return phase_blocks([(a.seq, a.phase) for a in trial.arms])


def arm_phases(trial: TrialAnalysis) -> dict[int, str]:
    """Arm seq -> its phase, with its block where the phase has several arms ('candidate 2')."""
    return {a.seq: a.phase if block is None else f"{a.phase} {block}" for a, block in zip(trial.arms, _blocks(trial).values())}


def arm_label_map(trial: TrialAnalysis) -> dict[int, str]:
    """Arm seq -> the label of that arm ('Original before', 'Layout 2', 'Original restored 1')."""
    labels = phase_labels(trial)
    return {a.seq: labels[a.phase] if block is None else f"{labels[a.phase]} {block}" for a, block in zip(trial.arms, _blocks(trial).values())}


def arm_labels(trial: TrialAnalysis) -> list[str]:
    """The arms' column headers, in run order (for A/B/A: before, candidate, restored)."""
    return list(arm_label_map(trial).values())
