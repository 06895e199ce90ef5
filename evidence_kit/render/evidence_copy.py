"""The evidence a decision publishes: every file of its folder, hashed, and its receipts.

The site carries a copy of each decision folder (``decision.toml`` and its trial
bundles) so the site alone is enough to verify it. Sizes and hashes are of the
bytes as read, listed in path order. Only the files the contract lays out
(:mod:`evidence_kit.model.layout`) are published; any other is bad input.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..attest.manifest import MANIFEST_NAME, NOT_LISTED, listed_files, read_manifest
from ..attest.tree import path_problem, walk_tree
from ..errors import BadInput
from ..model import RECEIPT_NAME, Receipt
from ..model.evidence import DecisionEvidence
from ..model.layout import layout_problem
from ..read import read_json_model

__all__ = [
    "EvidenceFile",
    "evidence_files",
    "check_bundle_manifests",
    "receipts",
    "withheld_classes",
]


@dataclass(frozen=True)
class EvidenceFile:
    """One published file of a decision folder."""

    path: str  # relative to the decision folder, '/'-separated
    size: int
    sha256: str
    data: bytes


def _decision_paths(folder: Path) -> list[Path]:
    """A redacted decision folder's files: its manifest and every file the manifest lists.

    The copy must verify like the original, against the decision folder's own
    manifest, so it is copied whole; :func:`check_bundle_manifests` has checked the
    manifest against the folder.
    """
    paths = [folder / MANIFEST_NAME]
    for entry in read_manifest(folder / MANIFEST_NAME).files:
        problem = path_problem(entry.path)
        if problem:
            raise BadInput(f"lists {entry.path!r}: {problem}", folder / MANIFEST_NAME)
        paths.append(folder / entry.path)
    return paths


def _raw_paths(folder: Path) -> list[Path]:
    """Every entry of a decision folder no manifest lists (raw evidence), symlinks never followed: each one is
    published or refused, none left behind unsaid."""
    _refuse_unmanifested_redaction(folder)  # a redaction marked not publishable says so before any of its files
    paths = []
    for rel, problem in walk_tree(folder):
        if problem is not None:
            raise BadInput(f"{problem}: a file of the decision folder that cannot be published; copy the file in, or remove it", folder / rel)
        paths.append(folder / rel)
    return paths


def evidence_files(evidence: DecisionEvidence) -> list[EvidenceFile]:
    """Every file of a raw decision folder, in path order; for a redacted decision folder (one with its own
    ``manifest.json``), that manifest and every file it lists. A file the contract does not lay out is bad input."""
    folder = Path(evidence.source)
    paths = _decision_paths(folder) if (folder / MANIFEST_NAME).is_file() else _raw_paths(folder)
    trials = [Path(t.source).relative_to(folder).as_posix() for t in evidence.trials]
    out = []
    for path in sorted(paths, key=lambda p: p.relative_to(folder).as_posix()):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            raise BadInput("a symbolic link cannot be published; copy the file in", path)
        problem = layout_problem(rel, trials)  # a page, an image or a note would be shown, and checked by nothing
        if problem:
            raise BadInput(problem, path)
        if not path.is_file():
            raise BadInput("listed in the decision folder's manifest.json but missing", path)
        data = path.read_bytes()
        out.append(EvidenceFile(rel, len(data), hashlib.sha256(data).hexdigest(), data))
    return out


def check_bundle_manifests(evidence: DecisionEvidence, files: list[EvidenceFile]) -> None:
    """Each trial bundle that has a ``manifest.json`` still matches it; raise :class:`BadInput` if not.

    A bundle edited after redaction would be published, signed, and then fail
    ``verify`` (its own manifest disagrees): refuse it before anything is built.
    """
    folder = Path(evidence.source)
    by_path = {f.path: f for f in files}
    _check_decision_manifest(evidence, by_path)
    for trial in evidence.trials:
        source = Path(trial.source)
        manifest_path = source / MANIFEST_NAME
        if not manifest_path.is_file():
            _refuse_unmanifested_redaction(source)
            continue  # raw evidence: the leak scan refuses it, or the redactor never ran
        prefix = source.relative_to(folder).as_posix() + "/"
        listed = {e.path: e for e in read_manifest(manifest_path).files}
        for entry in sorted(listed.values(), key=lambda e: e.path):
            found = by_path.get(prefix + entry.path)
            if found is None:
                raise BadInput(f"listed in {prefix}{MANIFEST_NAME} but missing", source / entry.path)
            if (found.sha256, found.size) != (entry.sha256, entry.size):
                raise BadInput(
                    f"differs from {prefix}{MANIFEST_NAME} (changed after redaction?); re-run redact, or restore the file", source / entry.path
                )
        for rel in sorted(by_path):
            inner = rel[len(prefix) :]
            if rel.startswith(prefix) and inner not in listed and inner not in NOT_LISTED:
                raise BadInput(f"not listed in {prefix}{MANIFEST_NAME} (added after redaction?)", folder / rel)


def _check_decision_manifest(evidence: DecisionEvidence, by_path: dict[str, EvidenceFile]) -> None:
    """A redacted decision folder still matches its own manifest, and has one: ``verify`` requires it."""
    folder = Path(evidence.source)
    manifest_path = folder / MANIFEST_NAME
    if not manifest_path.is_file():
        if any((Path(t.source) / MANIFEST_NAME).is_file() for t in evidence.trials):
            raise BadInput(
                "a redacted decision folder without its own manifest.json (redacted by an earlier "
                "evidence-kit); redact it again: no other byte changes",
                manifest_path,
            )
        return  # raw evidence (evidence_files refused a redaction without its manifest): the leak scan refuses it
    listed = {e.path: e for e in read_manifest(manifest_path).files}
    for entry in sorted(listed.values(), key=lambda e: e.path):
        found = by_path.get(entry.path)
        if found is None or (found.sha256, found.size) != (entry.sha256, entry.size):
            raise BadInput(f"differs from {MANIFEST_NAME} (changed after redaction?); re-run redact, or restore the file", folder / entry.path)
    for rel in listed_files(folder):
        if rel not in listed:
            raise BadInput(f"not listed in {MANIFEST_NAME} (added after redaction?)", folder / rel)


def _refuse_unmanifested_redaction(folder: Path) -> None:
    """A folder the redactor wrote (it holds ``receipt.json``) but without ``manifest.json`` is one whose known-value
    scan found a private value (docs/redaction.md: marked ``NOT-PUBLISHABLE.txt``, no manifest anywhere): it would
    be published as raw evidence, which only raw bundles' own private values are scanned for."""
    if (folder / RECEIPT_NAME).is_file():
        raise BadInput(
            f"missing, but the folder holds {RECEIPT_NAME}: the redactor leaves out every manifest of a folder it found "
            "a private value in (see NOT-PUBLISHABLE.txt); fix the policy and redact again",
            folder / MANIFEST_NAME,
        )


def receipts(evidence: DecisionEvidence) -> dict[str, Receipt | None]:
    """trial_id -> its redaction receipt, or None for a bundle the redactor never processed."""
    out: dict[str, Receipt | None] = {}
    for trial in evidence.trials:
        path = Path(trial.source) / RECEIPT_NAME
        out[trial.trial.trial_id] = read_json_model(path, Receipt) if path.is_file() else None
    return out


def withheld_classes(receipts: dict[str, Receipt | None]) -> list[str]:
    """Every class of identity the receipts say was replaced (their counts are file -> class -> n)."""
    return sorted({cls for r in receipts.values() if r for per_class in r.counts.values() for cls in per_class})
