"""Verify a trial bundle, a decision folder or a built site: every check, in order, into one report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ..errors import EXIT_FAILED, EXIT_OK, BadInput
from ..one_line import encodable, one_line
from .checks import Check, check_completeness, check_digests, check_paths, check_signature, check_statement, run_check
from .context import CheckResult, Context
from .evidence_checks import check_contract, check_receipts
from .recompute import check_figures
from .tree import ENVELOPE_NAME, MANIFEST_NAME

__all__ = ["CHECKS", "Report", "verify_folder", "published_root", "REPORT_SCHEMA"]

REPORT_SCHEMA = "evidence-kit/verify-report/v1"

# The order the issue and docs/verify.md state; later checks use what earlier ones established.
CHECKS: list[tuple[str, Check]] = [
    ("signature", check_signature),
    ("statement", check_statement),
    ("digests", check_digests),
    ("complete", check_completeness),
    ("paths", check_paths),
    ("contract", check_contract),
    ("receipts", check_receipts),
    ("figures", check_figures),
]


@dataclass
class Report:
    """Every check's result for one target."""

    target: str
    results: list[CheckResult]

    @property
    def verified(self) -> bool:
        return all(r.status != "fail" for r in self.results)

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.verified else EXIT_FAILED

    def as_json(self) -> str:
        doc = {
            "schema": REPORT_SCHEMA,
            "target": encodable(self.target),
            "verified": self.verified,
            "checks": [r.as_dict() for r in self.results],
        }
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def as_text(self) -> str:
        """One line per check and per problem: names from the folder (a file name may hold a
        newline or an escape sequence) are shown escaped, so no problem spans or forges a line."""
        lines = []
        target = one_line(self.target)
        for r in self.results:
            lines.append(f"{r.status.upper():4} {r.name:9} {one_line(r.detail)}")
            lines += [f"     {one_line(p.where)}: {one_line(p.what)}" for p in r.problems]
        failed = [r.name for r in self.results if r.status == "fail"]
        if failed:
            lines.append(f"FAILED: {target}: {len(failed)} check(s) failed: {', '.join(failed)}")
        else:
            skipped = [r.name for r in self.results if r.status == "skip"]
            note = f" (skipped: {', '.join(skipped)})" if skipped else ""
            lines.append(f"verified: {target}{note}")
        return "\n".join(lines) + "\n"


def published_root(path: Path) -> Path:
    """The folder to verify: a built site's ``public/`` when given the site folder, else ``path``."""
    if not path.exists():
        raise BadInput("no such file or folder", path)
    if not path.is_dir():
        raise BadInput("not a folder (give a trial bundle, a decision folder, a built site or a URL)", path)
    public = path / "public"
    if (path / "mkdocs.yml").is_file() and (public / MANIFEST_NAME).is_file():
        return public
    markers = ("trial.json", "decision.toml", MANIFEST_NAME, ENVELOPE_NAME)
    if not any((path / name).is_file() for name in markers):
        raise BadInput(
            "nothing to verify: not a trial bundle (trial.json), a decision folder (decision.toml) "
            "or a built site (manifest.json)",
            path,
        )
    return path


def verify_folder(
    path: Path, keys: Sequence[Ed25519PublicKey] = (), *, label: str | None = None
) -> Report:
    """Run every check on ``path`` (a bundle, decision folder or site); raise :class:`BadInput` if unreadable."""
    root = published_root(Path(path))
    ctx = Context(root=root, label=label or str(root), keys=list(keys), key_given=bool(keys))
    try:
        ctx.scan()
    except OSError as err:
        raise BadInput(f"cannot list the folder ({err.strerror})", root) from None
    results = [run_check(name, check, ctx) for name, check in CHECKS]
    return Report(target=ctx.label, results=results)
