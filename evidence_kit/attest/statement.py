"""in-toto Statement v1 for a published folder: every file as a subject, and what was published.

The predicate (type :data:`PREDICATE_TYPE`) names the tool version, the decisions
and trials, the receipts' digests and the statistics definitions, so an
auditor can cross-check the signed claims against the folder, not only the
bytes. A built site's predicate also names the toolchain that wrote its bytes
(:data:`TOOLCHAIN_FIELD`, given by the builder): the versions an auditor needs
to rebuild it byte for byte; and a published folder's says how it was published
(:data:`PUBLICATION_FIELD`: a whole site, or a MkDocs plugin's prefix folder).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..analyze import statistics_version
from ..model import RECEIPT_NAME, Decision, Trial
from ..read import read_json_model, read_toml_model
from ..version import __version__
from .manifest import MANIFEST_NAME
from .tree import sha256_file, walk_tree

__all__ = [
    "STATEMENT_TYPE",
    "PREDICATE_TYPE",
    "statement_bytes",
    "parse_statement",
    "folder_predicate",
    "recorded_toolchain",
    "StatementError",
    "TOOLCHAIN_FIELD",
    "PUBLICATION_FIELD",
    "PUBLISHED_AS_SITE",
    "PUBLISHED_BY_PLUGIN",
    "SOURCES_FIELD",
    "recorded_sources",
    "sources_record",
]

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://evidence-kit.invalid/attestation/site/v1"
# {"python": "3.11.7", "mkdocs": "1.6.1", "mkdocs-material": "9.6.1", ...}: package name -> version.
TOOLCHAIN_FIELD = "toolchain"
# How the signed folder was published: a whole site ``build --sign`` wrote, or the prefix folder the MkDocs
# plugin added to a host site. ``verify`` checks the folder has the layout the signature claims.
PUBLICATION_FIELD = "publication"
PUBLISHED_AS_SITE = "site"
# {"mkdocs.yml": sha256, "site/index.md": sha256, ...}: the files ``build`` writes beside ``public/`` (what a
# repository commits and a code host renders), signed with it so that no toolchain is needed to check them.
SOURCES_FIELD = "sources"
PUBLISHED_BY_PLUGIN = "mkdocs-plugin"


class StatementError(Exception):
    """The payload is not an in-toto Statement v1 of ours."""


def statement_bytes(subjects: list[tuple[str, str]], predicate: dict[str, Any]) -> bytes:
    """The Statement as compact, key-sorted JSON: ``subjects`` are ``(path, sha256)`` pairs."""
    if not predicate:
        raise ValueError("the predicate must not be empty")
    doc = {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": name, "digest": {"sha256": sha}} for name, sha in sorted(subjects)],
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate,
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def parse_statement(payload: bytes) -> tuple[dict[str, str], dict[str, Any]]:
    """Check a verified payload is our Statement; return ``({name: sha256}, predicate)``."""
    try:
        doc = json.loads(payload)
    except (ValueError, RecursionError) as err:
        raise StatementError(f"payload is not JSON ({err})") from None
    if not isinstance(doc, dict):
        raise StatementError("payload is not a JSON object")
    if doc.get("_type") != STATEMENT_TYPE:
        raise StatementError(f"_type is {doc.get('_type')!r}, expected {STATEMENT_TYPE!r}")
    if doc.get("predicateType") != PREDICATE_TYPE:
        raise StatementError(f"predicateType is {doc.get('predicateType')!r}, expected {PREDICATE_TYPE!r}")
    predicate = doc.get("predicate")
    if not isinstance(predicate, dict) or not predicate:
        raise StatementError("predicate is missing or empty")
    subjects: dict[str, str] = {}
    raw_subjects = doc.get("subject")
    if not isinstance(raw_subjects, list) or not raw_subjects:
        raise StatementError("subject list is missing or empty")
    for i, subject in enumerate(raw_subjects):
        name = subject.get("name") if isinstance(subject, dict) else None
        digest = subject.get("digest") if isinstance(subject, dict) else None
        sha = digest.get("sha256") if isinstance(digest, dict) else None
        if not isinstance(name, str) or not isinstance(sha, str):
            raise StatementError(f"subject[{i}] has no name or no sha256 digest")
        if name in subjects:
            raise StatementError(f"subject {name!r} is listed twice")
        subjects[name] = sha
    return subjects, predicate


def folder_predicate(root: Path) -> dict[str, Any]:
    """What a folder publishes: decisions, trials and receipts found in it, tool and statistics versions."""
    decisions: list[str] = []
    trials: list[str] = []
    receipts: list[dict[str, str]] = []
    versions: set[int] = set()
    for rel, problem in walk_tree(root):
        if problem:
            continue
        name = rel.rsplit("/", 1)[-1]
        if name == "decision.toml":
            decisions.append(read_toml_model(root / rel, Decision).id)
        elif name == "trial.json":
            trial = read_json_model(root / rel, Trial)
            trials.append(trial.trial_id)
            versions.add(trial.decision_rule.version)
        elif name == RECEIPT_NAME:
            receipts.append({"path": rel, "sha256": sha256_file(root / rel)[0]})
    return {
        "tool": {"name": "evidence-kit", "version": __version__},
        "statistics": statistics_version(versions),
        "decisions": sorted(set(decisions)),
        "trials": sorted(set(trials)),
        "receipts": receipts,
        "manifest": MANIFEST_NAME,
    }


def recorded_toolchain(predicate: dict[str, Any]) -> dict[str, str] | None:
    """The toolchain a signed predicate records (``{name: version}``), ``None`` when it records none."""
    toolchain = predicate.get(TOOLCHAIN_FIELD)
    if toolchain is None:
        return None
    if not isinstance(toolchain, dict) or not toolchain or not all(isinstance(k, str) and isinstance(v, str) for k, v in toolchain.items()):
        raise StatementError(f"predicate field {TOOLCHAIN_FIELD!r} is not a table of package versions")
    return dict(toolchain)


def sources_record(files: dict[str, bytes]) -> dict[str, str]:
    """The signed record of a site's sources: sha256 of each file ``build`` writes beside ``public/``."""
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(files.items())}


def recorded_sources(predicate: dict[str, Any]) -> dict[str, str] | None:
    """The sources a signed predicate records (``{path: sha256}``), ``None`` when it records none."""
    sources = predicate.get(SOURCES_FIELD)
    if sources is None:
        return None
    if not isinstance(sources, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in sources.items()):
        raise StatementError(f"predicate field {SOURCES_FIELD!r} is not a table of sha256 digests")
    return dict(sources)
