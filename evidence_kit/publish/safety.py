"""The last step of a build: scan the finished site for the known private values, and fail closed.

The redactor's known-value scan does the work; this module only decides what to hunt for: the
identities of any raw (receipt-less) bundle being published, the operator's private maps and
policy. Exact copies of third-party files (the theme, the chart library) hold nothing of the
evidence and are not scanned.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import material
import mkdocs

from ..errors import CheckFailed
from ..model import RECEIPT_NAME
from ..model.evidence import DecisionEvidence
from ..redact import KnownValue, Policy, known_values_from_raw, load_known_values, load_policy, scan_tree
from ..render.charts import VEGA_SCRIPT, vendored_script

__all__ = ["known_values", "public_copies", "scan_site"]


def known_values(decisions: Sequence[DecisionEvidence], maps: Sequence[Path] = ()) -> list[KnownValue]:
    """Known private values: every raw bundle's ``private`` values, plus each private map's values."""
    found: list[KnownValue] = []
    for evidence in decisions:
        for trial in evidence.trials:
            if not (Path(trial.source) / RECEIPT_NAME).is_file():
                found += known_values_from_raw(Path(trial.source))
    for path in maps:
        found += load_known_values(path)
    return found


def _upstream(rel: str, vendored_sha256: str | None) -> Path | bytes | str | None:
    """Where a third-party file of the site comes from: vl-convert's bundle (or, given, its sha256),
    Material's theme, MkDocs' search."""
    if rel == f"assets/{VEGA_SCRIPT}":
        return vendored_sha256 if vendored_sha256 is not None else vendored_script()
    if rel.startswith(("assets/javascripts/", "assets/stylesheets/", "assets/images/")):
        return Path(material.__file__).resolve().parent / "templates" / rel
    if rel.startswith("search/") and rel.endswith(".js"):
        return Path(mkdocs.__file__).resolve().parent / "contrib" / "search" / "templates" / rel
    return None


def public_copies(root: Path, *, vendored_sha256: str | None = None) -> list[str]:
    """Files under ``root`` that are byte for byte a third-party file of the same name.

    A copy of a public file holds nothing of the evidence, so a short private value that
    happens to be a word of minified code (a host called ``vm``) is no finding there.
    ``vendored_sha256`` is the sha256 of vl-convert's bundle when the caller has it (the MkDocs
    plugin's cache records it with the rendering it was made for): asking vl-convert for the
    bundle takes seconds.
    """
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        origin = _upstream(rel, vendored_sha256) if path.is_file() and not path.is_symlink() else None
        if isinstance(origin, Path):
            origin = origin.read_bytes() if origin.is_file() else None
        if origin is None:
            continue
        data = path.read_bytes()
        if origin == (hashlib.sha256(data).hexdigest() if isinstance(origin, str) else data):
            found.append(rel)
    return found


def scan_site(
    roots: Sequence[Path], values: list[KnownValue], *, shown_as: Path, policy_file: Path | None = None, vendored_sha256: str | None = None
) -> None:
    """Scan every file under ``roots``; raise :class:`CheckFailed` naming the first finding and the count.

    ``roots`` are staged folders; findings are reported under ``shown_as`` (the
    site folder the user named), where the file would have gone. Exact copies of
    third-party files (:func:`public_copies`) are not scanned; anything else under the
    vendored folders is, for known values.
    """
    policy = load_policy(policy_file) if policy_file else Policy()
    for root in roots:
        findings = scan_tree(root, known_values=values, policy=policy, skip=public_copies(root, vendored_sha256=vendored_sha256))
        if findings:
            first = findings[0]
            how = "a known private value" if first.source == "known" else "a file the scan cannot read"
            more = f" (and {len(findings) - 1} more findings)" if len(findings) > 1 else ""
            raise CheckFailed(
                f"the site would publish something private: {first.cls}, found as {how}{more}; nothing was written",
                shown_as / root.name / first.file,
                first.line,
            )
