"""Pydantic models for every record of the evidence contract (``docs/contract.md``)."""

from .decision import Decision
from .findings import Finding
from .journal import (
    JOURNAL_RECORD,
    JOURNAL_SCHEMA,
    TIMING_FIELDS,
    Check,
    EngineInfo,
    Footer,
    Gate,
    Header,
    ImportedFrom,
    JournalRecord,
    PromptCalibration,
    Request,
    Run,
)
from .manifest import MANIFEST_SCHEMA, RECEIPT_NAME, RECEIPT_SCHEMA, Manifest, ManifestEntry, Receipt
from .phase import CONTROLS, PHASES, Control, Phase
from .telemetry import TelemetrySample, TelemetrySummary
from .trial import TRIAL_SCHEMA, ArmRef, ClientBounds, DecisionRule, DeclaredRule, Trial, Workload

__all__ = [
    "ArmRef",
    "CONTROLS",
    "Check",
    "Control",
    "Decision",
    "ClientBounds",
    "DecisionRule",
    "DeclaredRule",
    "EngineInfo",
    "Finding",
    "Footer",
    "Gate",
    "Header",
    "ImportedFrom",
    "JOURNAL_RECORD",
    "JOURNAL_SCHEMA",
    "JournalRecord",
    "MANIFEST_SCHEMA",
    "Manifest",
    "ManifestEntry",
    "PHASES",
    "PromptCalibration",
    "Phase",
    "RECEIPT_NAME",
    "RECEIPT_SCHEMA",
    "Receipt",
    "Request",
    "Run",
    "TIMING_FIELDS",
    "TelemetrySample",
    "TelemetrySummary",
    "TRIAL_SCHEMA",
    "Trial",
    "Workload",
]
