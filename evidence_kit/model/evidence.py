"""In-memory evidence: what the loader hands to ``analyze`` (which does no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .decision import Decision
from .journal import Check, Footer, Gate, Header, Request, Run
from .telemetry import TelemetrySample
from .trial import ArmRef, Trial

__all__ = ["ArmEvidence", "TrialEvidence", "DecisionEvidence"]


@dataclass
class ArmEvidence:
    """One arm's journal, parsed: its records by kind, and the journal's hash."""

    ref: ArmRef
    header: Header
    footer: Footer | None
    sha256: str
    size: int
    requests: list[Request] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    gates: list[Gate] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    telemetry: list[TelemetrySample] | None = None  # samples of telemetry/<journal name>, None when absent

    @property
    def timed(self) -> list[Request]:
        """Timed requests, failed ones included (warmup never counts)."""
        return [r for r in self.requests if not r.warmup]


@dataclass
class TrialEvidence:
    """A trial bundle: ``trial.json`` and its arms in run order."""

    trial: Trial
    arms: list[ArmEvidence]
    source: str = ""

    def arm(self, phase: str) -> ArmEvidence:
        """The first arm of ``phase``."""
        return next(a for a in self.arms if a.ref.phase == phase)


@dataclass
class DecisionEvidence:
    """A decision folder: ``decision.toml`` and its trials in the order it names them."""

    decision: Decision
    trials: list[TrialEvidence]
    source: str = ""
