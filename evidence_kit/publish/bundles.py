"""The evidence a decision publishes: every file of its folder, hashed, and its receipts.

The site carries a copy of each decision folder (``decision.toml`` and its trial
bundles) so the site alone is enough to verify it. Sizes and hashes are of the
bytes as read, listed in path order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..bundle import read_json_model
from ..errors import BadInput
from ..model import Receipt
from ..model.evidence import DecisionEvidence

__all__ = ["EvidenceFile", "evidence_files", "receipts", "withheld_classes", "MARKDOWN_SUFFIXES"]

# MkDocs would render these as pages instead of copying them, so a bundle may not hold them.
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")


@dataclass(frozen=True)
class EvidenceFile:
    """One published file of a decision folder."""

    path: str  # relative to the decision folder, '/'-separated
    size: int
    sha256: str
    data: bytes


def evidence_files(evidence: DecisionEvidence) -> list[EvidenceFile]:
    """``decision.toml`` and every file of every named trial bundle, in path order."""
    folder = Path(evidence.source)
    paths = [folder / "decision.toml"]
    for trial in evidence.trials:
        paths += sorted(p for p in Path(trial.source).rglob("*") if p.is_file())
    out = []
    for path in sorted(paths, key=lambda p: p.relative_to(folder).as_posix()):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            raise BadInput("a symbolic link cannot be published; copy the file in", path)
        if path.name.startswith(".") or any(part.startswith(".") for part in rel.split("/")):
            raise BadInput("a hidden file cannot be published (MkDocs would drop it)", path)
        if path.suffix.lower() in MARKDOWN_SUFFIXES:
            raise BadInput("a Markdown file cannot be published as evidence (MkDocs would render it)", path)
        data = path.read_bytes()
        out.append(EvidenceFile(rel, len(data), hashlib.sha256(data).hexdigest(), data))
    return out


def receipts(evidence: DecisionEvidence) -> dict[str, Receipt | None]:
    """trial_id -> its redaction receipt, or None for a bundle the redactor never processed."""
    out: dict[str, Receipt | None] = {}
    for trial in evidence.trials:
        path = Path(trial.source) / "receipt.json"
        out[trial.trial.trial_id] = read_json_model(path, Receipt) if path.is_file() else None
    return out


def withheld_classes(receipts: dict[str, Receipt | None]) -> list[str]:
    """Every class of identity the receipts say was replaced (their counts are file -> class -> n)."""
    return sorted({cls for r in receipts.values() if r for per_class in r.counts.values() for cls in per_class})
