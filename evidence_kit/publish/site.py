"""``build``: decision folders in, an offline MkDocs Material site out — load, render, build, scan, swap.

The files are rendered by :mod:`evidence_kit.render` (layout of ``SITE`` in
:mod:`evidence_kit.render.docs_folder`). Everything is built in a temporary folder
inside ``SITE`` and moved into place only after MkDocs succeeded and the leak scan
found nothing, so a failed build leaves ``SITE`` as it was.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..analyze import Analysis, analyze
from ..attest.dsse import EnvelopeError, parse_envelope, verify_envelope
from ..attest.history import FIRST, HISTORY_FIELD, History, parse_history
from ..attest.keys import load_private_key
from ..attest.manifest import ENVELOPE_NAME, write_manifest
from ..attest.sign import sign_tree
from ..attest.statement import PUBLICATION_FIELD, PUBLISHED_AS_SITE, SOURCES_FIELD, TOOLCHAIN_FIELD, StatementError, parse_statement, sources_record
from ..errors import BadInput
from ..model.evidence import DecisionEvidence
from ..progress import Steps
from ..read import load_decision, require_completed
from ..render.chart_cache import ChartCache, default_cache_folder
from ..render.docs_folder import docs_files
from ..render.evidence_copy import check_bundle_manifests, evidence_files
from ..render.layout import OWNED, order_decisions
from ..render.mkdocs_build import run_mkdocs, source_date_epoch
from ..render.toolchain import installed_toolchain
from .safety import known_values, scan_site

__all__ = ["BUILD_STEPS", "BuildResult", "build_site", "load_decisions"]

BUILD_STEPS = 5  # load and analyse, render, MkDocs, manifest (and signature), leak scan


@dataclass
class BuildResult:
    """Where the site went and what it holds."""

    out: Path
    decisions: list[str]
    pages: int
    files: int


def load_decisions(folders: Sequence[Path]) -> list[tuple[DecisionEvidence, Analysis]]:
    """Load and analyse each decision folder; newest first, then by id. Duplicate ids are bad input."""
    loaded = []
    seen: dict[str, Path] = {}
    for folder in folders:
        evidence = require_completed(load_decision(folder))  # a trial that measured nothing is never published
        did = evidence.decision.id
        if did in seen:
            raise BadInput(f"decision id {did!r} is also the id of {seen[did]}", Path(folder) / "decision.toml")
        seen[did] = Path(folder)
        loaded.append((evidence, analyze(evidence)))
    return order_decisions(loaded)


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def next_history(previous: Path, sign_key: Path) -> History:
    """The history of a publication built where ``previous`` (the last one's envelope) may be: the one after it,
    or a site's first. A previous publication signed by another key is bad input: it is not this publisher's
    history to continue (move it away to start a new one)."""
    if not previous.is_file():
        return FIRST
    data = previous.read_bytes()
    try:
        verified = verify_envelope(parse_envelope(data), [load_private_key(sign_key).public_key()])
        _, predicate = parse_statement(verified.payload)
        history = parse_history(predicate) or FIRST
    except (EnvelopeError, StatementError, ValueError) as err:
        raise BadInput(f"the previous publication here cannot be continued ({err}); move it away to start a new history", previous) from None
    return history.following(data)


def _swap_into(out: Path, staged: Path) -> None:
    """Replace SITE's owned entries by the staged ones (old ones removed only after the new are staged)."""
    for name in OWNED:
        target = out / name
        if target.is_dir() and not target.is_symlink():
            old = Path(tempfile.mkdtemp(prefix=f".{name}.old-", dir=out))
            target.rename(old / name)
            (staged / name).rename(target)
            shutil.rmtree(old)
        else:
            (staged / name).replace(target)


def build_site(
    folders: Sequence[Path],
    out: Path,
    *,
    private_maps: Sequence[Path] = (),
    policy: Path | None = None,
    sign_key: Path | None = None,
    steps: Steps | None = None,
    charts: ChartCache | None = None,
) -> BuildResult:
    """Build the site of ``folders`` into ``out`` (layout in :mod:`evidence_kit.render.docs_folder`).

    With ``sign_key`` (an Ed25519 private key from ``keygen``) ``public/`` is signed
    before the leak scan: ``signing.pub``, the manifest and ``manifest.dsse.json``
    (a DSSE envelope around an in-toto Statement of every file, naming the
    toolchain that built them) are scanned and moved into place with the rest,
    or not at all. ``steps`` is told each of the :data:`BUILD_STEPS` steps as it starts.

    ``charts`` draws the charts, reading back those drawn before (default: the user's chart cache,
    :func:`evidence_kit.render.chart_cache.default_cache_folder`); the site's bytes are the same either way.
    """
    steps = steps or Steps()
    if not folders:
        raise BadInput("no decision folder given")
    if out.exists() and not out.is_dir():
        raise BadInput("exists and is not a folder", out)
    steps.step(f"loading and analysing {len(folders)} decision folder(s)")
    loaded = load_decisions(folders)
    for evidence, _ in loaded:
        check_bundle_manifests(evidence, evidence_files(evidence))
    values = known_values([ev for ev, _ in loaded], private_maps)
    steps.step("rendering pages and charts")
    files = docs_files(loaded, draw=(charts or ChartCache(default_cache_folder())).trial_charts)
    out.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=".evidence-kit-build-", dir=out))
    try:
        _write_tree(staged, files)
        steps.step("running mkdocs build --strict")
        run_mkdocs(staged / "mkdocs.yml", source_date_epoch([ev.decision.date for ev, _ in loaded]))
        steps.step("writing the manifest" + (" and signing it" if sign_key is not None else ""))
        write_manifest(staged / "public")
        if sign_key is not None:
            claims = {TOOLCHAIN_FIELD: installed_toolchain(), PUBLICATION_FIELD: PUBLISHED_AS_SITE, SOURCES_FIELD: sources_record(files)}
            claims[HISTORY_FIELD] = next_history(out / "public" / ENVELOPE_NAME, sign_key).as_dict()
            sign_tree(staged / "public", sign_key, predicate=claims)
        steps.step("scanning the site for private values")
        scan_site([staged / "site", staged / "public"], values, shown_as=out, policy_file=policy)
        _swap_into(out, staged)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    pages = sum(1 for rel in files if rel.endswith(".md"))
    return BuildResult(out=out, decisions=[a.decision.id or "" for _, a in loaded], pages=pages, files=len(files))
