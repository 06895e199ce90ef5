"""What the checks share: the folder, the keys, results of earlier checks, and each file's hash once.

Every file is hashed at most once per verification, whichever check asks
first, so verifying costs about one read of the evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..attest.manifest import MANIFEST_NAME, ManifestError, parse_manifest
from ..attest.tree import resolve_listed, sha256_file, walk_tree
from ..one_line import encodable
from .contract import Evidence
from .pin import UNPINNED, Pin

__all__ = ["Problem", "CheckResult", "Context", "Status"]

Status = Literal["pass", "fail", "skip"]


@dataclass
class Problem:
    """One thing found wrong: where (file[:line], page, figure) and what."""

    where: str
    what: str

    def as_dict(self) -> dict[str, str]:
        return {"where": encodable(self.where), "what": encodable(self.what)}


@dataclass
class CheckResult:
    """The outcome of one check: a line of the report and the problems behind a failure."""

    name: str
    status: Status
    detail: str
    problems: list[Problem] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.name,
            "status": self.status,
            "detail": encodable(self.detail),
            "problems": [p.as_dict() for p in self.problems],
        }


@dataclass
class Context:
    """One verification in progress."""

    root: Path
    label: str
    pin: Pin = UNPINNED
    site: Path | None = None  # the SITE folder of build, when given instead of its public/ folder
    files: list[str] = field(default_factory=list)
    special: dict[str, str] = field(default_factory=dict)
    manifests: dict[str, dict[str, Any] | str] = field(default_factory=dict)
    envelope_data: bytes | None = None
    signed_payload: bytes | None = None
    payload_type: str | None = None
    signer: str | None = None
    authenticated: bool = False  # set by the signature check: a valid signature by the pinned key
    subjects: dict[str, str] | None = None
    predicate: dict[str, Any] | None = None
    evidence: dict[str, Evidence] = field(default_factory=dict)
    unloaded: list[str] = field(default_factory=list)  # evidence folders the contract check could not load
    docs: dict[str, bytes] | None = None  # the site's regenerated docs folder and mkdocs.yml, rendered once
    reported: set[str] = field(default_factory=set)  # published files the figures check already named
    host_site: bool = False  # set by the figures check: decisions the MkDocs plugin published inside a host site
    not_rebuilt: str | None = None  # why the sources check could not reproduce every file: the toolchain versions that differ
    unregenerated: list[str] = field(default_factory=list)  # files the sources check could not regenerate, signed
    analyses: dict[str, Any] = field(default_factory=dict)  # set by the figures check: each unit's recomputed analysis
    since: Any = None  # --since: the publication the auditor saw last (verify.history.Since)
    publication: Any = None  # set by the history check: this publication (verify.history.Publication)
    _digests: dict[str, tuple[str, int] | str] = field(default_factory=dict)

    def scan(self) -> None:
        """List the folder once: regular files, and entries that may not be published."""
        for rel, problem in walk_tree(self.root):
            if problem:
                self.special[rel] = problem
            else:
                self.files.append(rel)
        for rel in self.files:
            if rel.rsplit("/", 1)[-1] == MANIFEST_NAME:
                folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
                self.manifests[folder] = _read_manifest(self.root / rel)

    def where(self, rel: str, line: int | None = None) -> str:
        """A location as the user gave the folder: ``ROOT/rel[:line]``."""
        text = f"{self.label.rstrip('/')}/{rel}" if rel else self.label
        return text if line is None else f"{text}:{line}"

    def digest(self, rel: str) -> tuple[str, int] | str:
        """``(sha256, size)`` of a listed file, or why it cannot be read (never reading outside)."""
        cached = self._digests.get(rel)
        if cached is not None:
            return cached
        path, problem = resolve_listed(self.root, rel)
        if path is None:
            result: tuple[str, int] | str = problem or "cannot be read"
        else:
            try:
                result = sha256_file(path)
            except OSError as err:
                result = f"cannot read ({err.strerror})"
        self._digests[rel] = result
        return result


def _read_manifest(path: Path) -> dict[str, Any] | str:
    """The manifest's JSON, or why it cannot be used (its entries are judged by the checks)."""
    try:
        return parse_manifest(path.read_bytes())
    except OSError as err:
        return f"manifest is not readable JSON ({err})"
    except ManifestError as err:
        return str(err)
