"""Verify a trial bundle, a decision folder or a built site: every check, in order, into one report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..canonical import canonical_json
from ..errors import EXIT_FAILED, EXIT_OK, BadInput
from ..one_line import encodable, one_line
from ..progress import Steps
from ..read import require_completed
from .checks import Check, check_completeness, check_digests, check_paths, check_signature, check_statement, run_check
from .evidence_checks import check_contract, check_receipts
from .history import Since, check_history
from .pin import UNPINNED, Pin
from .recompute import check_figures
from .sources import check_sources
from .verification import CheckResult, Context

__all__ = ["CHECKS", "VERIFY_STEPS", "Report", "verify_folder", "published_root", "locate", "REPORT_SCHEMA"]

REPORT_SCHEMA = "evidence-kit/verify-report/v1"
# What no check of a prefix folder the MkDocs plugin published can establish: the rest of the host site.
HOST_NOT_PROVEN = (
    "anything of the host site around these decisions (its own pages, theme files and scripts, navigation, header, "
    "footer and search index, the rest of each page's <title> and its markup outside the article): this folder's "
    "manifest does not list them, and nothing here signs them"
)

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
    ("sources", check_sources),
    ("history", check_history),
]
# What each check does, as the progress display names it (evidence_kit.progress).
DOING = {
    "signature": "checking the signature",
    "statement": "reading the signed statement",
    "digests": "hashing every file",
    "complete": "checking that no file is missing or unlisted",
    "paths": "checking the paths",
    "contract": "loading the evidence",
    "receipts": "checking the receipts",
    "figures": "recomputing the figures and comparing every page",
    "sources": "comparing the site with what build writes",
    "history": "reading the publication's history",
}
VERIFY_STEPS = 1 + len(CHECKS)  # listing the files, then each check (by URL, one more: the download)


@dataclass
class Report:
    """Every check's result for one target, and whom the result is about: the signer, pinned or not."""

    target: str
    results: list[CheckResult]
    pin: Pin = UNPINNED
    authenticated: bool = False
    signer: str | None = None
    allow_unpinned: bool = False
    not_rebuilt: str | None = None  # the toolchain versions that kept the sources check from reproducing the site
    unregenerated: tuple[str, ...] = ()  # the files it therefore could not regenerate (each covered by the signature)
    host_site: bool = False  # decisions the MkDocs plugin published inside a host site
    publication: Any = None  # the history check's Publication: digest, history, decisions verified

    @property
    def checks_passed(self) -> bool:
        """No check failed (skips allowed): the folder is intact and its figures hold."""
        return all(r.status != "fail" for r in self.results)

    @property
    def verified(self) -> bool:
        """What exit 0 means: every check passed, and the signer is authenticated or the auditor allowed it not to be."""
        return self.checks_passed and (self.authenticated or self.allow_unpinned)

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.verified else EXIT_FAILED

    def _status(self, name: str) -> str | None:
        return next((r.status for r in self.results if r.name == name), None)

    def proven(self) -> list[str]:
        """What the checks that passed establish, one phrase each."""
        out = []
        if self._status("signature") == "pass":
            if self.authenticated:
                out.append(f"signed by the publisher's key (key id {self.signer}, pinned with {self.pin.how})")
            else:
                out.append(f"signed consistently by the key the folder ships (key id {(self.signer or '')[:16]}…)")
        if self._status("digests") == "pass" and self._status("complete") == "pass":
            signed = " and the signed list" if self._status("signature") == "pass" else ""
            out.append(f"every file matches the manifests{signed}, none missing or unlisted")
        if self._status("contract") == "pass":
            out.append("the journals follow the evidence contract")
        if self._status("receipts") == "pass":
            out.append("every redacted folder has its receipt")
        if self._status("figures") == "pass":
            out.append("the figures recomputed from the journals, every published one compared")
        if self._status("sources") == "pass":
            out.append("every file is byte for byte what build writes from the evidence")
        if self._status("history") == "pass" and self.publication is not None:
            out.append(next(r.detail for r in self.results if r.name == "history"))
        return out

    def not_proven(self) -> list[str]:
        """What this verification does not establish, one phrase each."""
        out = []
        if not self.authenticated:
            if self._status("signature") == "pass":
                out.append("who signed it (no --key or --key-id pinned; anyone who can change the folder can re-sign it with a key of their own)")
            else:
                out.append("who published it (the folder is not signed)")
        if self._status("digests") == "skip":
            out.append("that these are the files that were published (nothing lists their hashes: raw evidence)")
        if self.host_site:
            out.append(HOST_NOT_PROVEN)
        if self.not_rebuilt:
            shown = ", ".join(self.unregenerated[:12]) + (f" and {len(self.unregenerated) - 12} more" if len(self.unregenerated) > 12 else "")
            out.append(
                f"that each page's markup and Material's theme files (its scripts among them) are what build "
                f"writes (not reproduced with the installed versions: {self.not_rebuilt}; install those versions to check them). Not regenerated: "
                f"{shown or 'none'}; what still holds for them: the publisher signed each one (unchanged since), and "
                "each page's text and every chart (spec, SVG, Vega scripts) were checked by figures"
            )
        return out

    def summary(self) -> str:
        """The last line of the report: the verdict, what was proven and what was not."""
        failed = [r.name for r in self.results if r.status == "fail"]
        if failed:
            return f"FAILED: {self.target}: {len(failed)} check(s) failed: {', '.join(failed)}"
        proven = "; ".join(self.proven()) or "nothing"
        if self.authenticated:
            # What a signature by the pinned key still leaves open (the host site around a plugin's decisions,
            # what a skipped rebuild did not compare) is in the last line too.
            rest = self.not_proven()
            tail = f"; not proven: {'; '.join(rest)}" if rest else ""
            return f"verified: {self.target}: authenticated: {proven}{tail}"
        head = "verified without authentication (--allow-unpinned)" if self.allow_unpinned else "NOT AUTHENTICATED"
        tail = "" if self.allow_unpinned else ("; pin the publisher's key with --key PUB or --key-id HEX, or pass --allow-unpinned to accept this")
        return f"{head}: {self.target}: the signer is not authenticated; proven: {proven}; not proven: {'; '.join(self.not_proven())}{tail}"

    def as_json(self) -> str:
        doc = {
            "schema": REPORT_SCHEMA,
            "target": encodable(self.target),
            "verified": self.verified,
            "checks_passed": self.checks_passed,
            "authenticated": self.authenticated,
            "allow_unpinned": self.allow_unpinned,
            "pin": self.pin.as_dict(),
            "signer_key_id": self.signer,
            "proven": self.proven(),
            "not_proven": self.not_proven(),
            "not_regenerated": [encodable(rel) for rel in self.unregenerated],
            "summary": encodable(self.summary()),
            "checks": [r.as_dict() for r in self.results],
            "publication": _publication(self.publication),
        }
        return canonical_json(doc).decode()

    def as_text(self) -> str:
        """One line per check and per problem: names from the folder (a file name may hold a
        newline or an escape sequence) are shown escaped, so no problem spans or forges a line."""
        lines = []
        for r in self.results:
            lines.append(f"{r.status.upper():4} {r.name:9} {one_line(r.detail)}")
            lines += [f"     {one_line(p.where)}: {one_line(p.what)}" for p in r.problems]
        lines.append(one_line(self.summary()))
        return "\n".join(lines) + "\n"


def _publication(found: Any) -> dict[str, Any] | None:
    """The publication as the JSON report carries it: digest, sequence, what it replaces, decisions verified."""
    if found is None:
        return None
    history = found.history.as_dict() if found.history is not None else None
    return {"digest": found.digest, "history": history, "decisions": found.decisions}


def locate(path: Path) -> tuple[Path, Path | None]:
    """``(folder to verify, SITE folder or None)``: a built site's ``public/`` and the site itself when
    given the site folder (``mkdocs.yml``, ``site/``, ``public/``), else ``(path, None)``."""
    if not path.exists():
        raise BadInput("no such file or folder", path)
    if not path.is_dir():
        raise BadInput("not a folder (give a trial bundle, a decision folder, a built site or a URL)", path)
    markers = ("trial.json", "decision.toml", MANIFEST_NAME, ENVELOPE_NAME)
    own = any((path / name).is_file() for name in markers)
    public = path / "public"
    # Judged by public/ and either of its sources, so a deleted mkdocs.yml or site/ is reported, not a reason
    # to call the folder something else.
    if not own and public.is_dir() and not public.is_symlink() and ((path / "mkdocs.yml").exists() or (path / "site").exists()):
        return public, path
    if not own and (path / "evidence" / "decision.toml").is_file() and (path.parent / MANIFEST_NAME).is_file():
        raise BadInput(f"a decision published inside a host MkDocs site: verify its prefix folder {path.parent}, which its manifest covers", path)
    if not own:
        raise BadInput(
            "nothing to verify: not a trial bundle (trial.json), a decision folder (decision.toml) or a built site (manifest.json)",
            path,
        )
    return path, None


def published_root(path: Path) -> Path:
    """The folder to verify: a built site's ``public/`` when given the site folder, else ``path``."""
    return locate(path)[0]


def verify_folder(
    path: Path,
    pin: Pin = UNPINNED,
    *,
    allow_unpinned: bool = False,
    label: str | None = None,
    since: Since | None = None,
    steps: Steps | None = None,
) -> Report:
    """Run every check on ``path`` (a bundle, decision folder or site); raise :class:`BadInput` if unreadable.

    ``pin`` names the publisher's key; without one the report can at most show
    integrity, and is verified only when ``allow_unpinned`` accepts that. ``steps`` is told each of the
    :data:`VERIFY_STEPS` steps as it starts (listing the files, then each check).
    """
    steps = steps or Steps()
    root, site = locate(Path(path))
    ctx = Context(root=root, label=label or str(root), pin=pin, site=site, since=since)
    steps.step("listing the files")
    try:
        ctx.scan()
    except OSError as err:
        raise BadInput(f"cannot list the folder ({err.strerror})", root) from None
    results = []
    for name, check in CHECKS:
        steps.step(DOING[name])
        results.append(run_check(name, check, ctx))
    for evidence in ctx.evidence.values():  # what the contract check loaded
        require_completed(evidence)  # a trial that measured nothing verifies nothing: refused, exit 2
    return Report(
        target=ctx.label,
        results=results,
        pin=pin,
        authenticated=ctx.authenticated,
        signer=ctx.signer,
        allow_unpinned=allow_unpinned,
        not_rebuilt=ctx.not_rebuilt,
        unregenerated=tuple(ctx.unregenerated),
        publication=ctx.publication,
        host_site=ctx.host_site,
    )
