"""``build``: decision folders in, an offline MkDocs Material site out — load, render, build, scan, swap.

Layout of a built site folder ``SITE`` (the same as this repository's root)::

    SITE/mkdocs.yml   generated MkDocs configuration (docs_dir: site, site_dir: public)
    SITE/site/        generated Markdown, charts, chart data and copies of the evidence
    SITE/public/      the HTML site; public/manifest.json lists every file in it

Everything is built in a temporary folder inside ``SITE`` and moved into place
only after MkDocs succeeded and the leak scan found nothing, so a failed build
leaves ``SITE`` as it was.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .. import __version__
from ..analyze import DEFINITIONS, Analysis, analyze
from ..read import load_decision
from ..errors import BadInput
from ..fsutil import atomic_write
from ..model.evidence import DecisionEvidence
from ..schemas import schema_bytes, schemas
from .evidence_copy import check_bundle_manifests, evidence_files
from .charts import VEGA_SCRIPT, vendored_script
from .escape import Markup, html_text, yaml_string
from .markdown import TEMPLATES, environment, link, render
from .mkdocs_build import run_mkdocs, source_date_epoch
from .pages import decision_files
from .safety import known_values, scan_site

__all__ = ["BuildResult", "build_site", "load_decisions", "order_decisions", "docs_files", "SITE_NAME", "OWNED"]

SITE_NAME = "evidence-kit decisions"
OWNED = ("mkdocs.yml", "site", "public")  # the only entries of SITE a build replaces


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
        evidence = load_decision(folder)
        did = evidence.decision.id
        if did in seen:
            raise BadInput(f"decision id {did!r} is also the id of {seen[did]}", Path(folder) / "decision.toml")
        seen[did] = Path(folder)
        loaded.append((evidence, analyze(evidence)))
    return order_decisions(loaded)


def order_decisions(loaded: list[tuple[DecisionEvidence, Analysis]]) -> list[tuple[DecisionEvidence, Analysis]]:
    """The site's order: newest first, then by id (``verify`` regenerates the index in the same order)."""
    ordered = sorted(loaded, key=lambda pair: pair[0].decision.id)
    ordered.sort(key=lambda pair: pair[0].decision.date, reverse=True)
    return ordered


def _badges(analysis: Analysis) -> Markup:
    outcome = analysis.decision.outcome
    text = f'<span class="ek-badge ek-badge-{outcome}">{outcome}</span>'
    if any(t.simulated for t in analysis.trials):
        text += ' <span class="ek-badge ek-badge-simulated">simulated</span>'
    return Markup(text)


def docs_files(loaded: list[tuple[DecisionEvidence, Analysis]]) -> dict[str, bytes]:
    """Every file of the docs folder, and ``../mkdocs.yml`` under the key ``mkdocs.yml``."""
    env = environment()
    files: dict[str, bytes] = {}
    rows = []
    for evidence, analysis in loaded:
        files.update({f"site/{k}": v for k, v in decision_files(evidence, analysis, env).items()})
        did = analysis.decision.id
        rows.append({
            "id": did,
            "nav_title": Markup(yaml_string(html_text(evidence.decision.title))),
            "cells": [
                evidence.decision.date,
                link(evidence.decision.title, f"decisions/{did}/index.md"),
                _badges(analysis),
                "; ".join(f"{t.trial_id} {t.timed_ok}/{t.timed_planned} timed requests" for t in analysis.trials),
            ],
        })
    files["site/index.md"] = render(env, "site/index.md.j2", decision_rows=[r["cells"] for r in rows])
    files["site/methodology.md"] = render(
        env, "site/methodology.md.j2", definitions=DEFINITIONS,
        definition_rows=[[k.replace("_", " "), v] for k, v in sorted(DEFINITIONS.items()) if k != "version"],
    )
    files["site/how-to-verify.md"] = render(env, "site/how-to-verify.md.j2", decisions=rows, version=__version__)
    schema_rows = []
    for name, body in sorted(schemas().items()):
        files[f"site/schemas/{name}.schema.json"] = schema_bytes(body)
        schema_rows.append([name, link(f"{name}.schema.json", f"{name}.schema.json")])
    files["site/schemas/index.md"] = render(env, "site/schemas.md.j2", schema_rows=schema_rows)
    for asset in ("charts.js", "extra.css"):
        files[f"site/assets/{asset}"] = (TEMPLATES / "assets" / asset).read_bytes()
    files[f"site/assets/{VEGA_SCRIPT}"] = vendored_script()
    files["mkdocs.yml"] = render(
        env, "mkdocs.yml.j2", decisions=rows, version=__version__, vega_script=VEGA_SCRIPT,
        site_name=Markup(yaml_string(SITE_NAME)),
    )
    return files


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _drop_empty_sitemaps(public: Path) -> None:
    """Without ``site_url`` (which an offline site cannot have) MkDocs' sitemap lists nothing; drop it."""
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        (public / name).unlink(missing_ok=True)


def _write_site_manifest(public: Path) -> None:
    from ..attest.manifest import manifest_bytes, build_manifest

    atomic_write(public / "manifest.json", manifest_bytes(build_manifest(public)))


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
    folders: Sequence[Path], out: Path, *, private_maps: Sequence[Path] = (), policy: Path | None = None,
    sign_key: Path | None = None,
) -> BuildResult:
    """Build the site of ``folders`` into ``out`` (layout in the module docstring).

    With ``sign_key`` (an Ed25519 private key from ``keygen``) ``public/`` is signed
    before the leak scan: ``signing.pub``, the manifest and ``manifest.dsse.json``
    (a DSSE envelope around an in-toto Statement of every file) are scanned and
    moved into place with the rest, or not at all.
    """
    if not folders:
        raise BadInput("no decision folder given")
    if out.exists() and not out.is_dir():
        raise BadInput("exists and is not a folder", out)
    loaded = load_decisions(folders)
    for evidence, _ in loaded:
        check_bundle_manifests(evidence, evidence_files(evidence))
    values = known_values([ev for ev, _ in loaded], private_maps)
    files = docs_files(loaded)
    out.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=".evidence-kit-build-", dir=out))
    try:
        _write_tree(staged, files)
        run_mkdocs(staged / "mkdocs.yml", source_date_epoch([ev.decision.date for ev, _ in loaded]))
        _drop_empty_sitemaps(staged / "public")
        _write_site_manifest(staged / "public")
        if sign_key is not None:
            from ..attest.sign import sign_tree

            sign_tree(staged / "public", sign_key)
        scan_site([staged / "site", staged / "public"], values, shown_as=out, policy_file=policy)
        _swap_into(out, staged)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    pages = sum(1 for rel in files if rel.endswith(".md"))
    return BuildResult(out=out, decisions=[a.decision.id or "" for _, a in loaded], pages=pages, files=len(files))
