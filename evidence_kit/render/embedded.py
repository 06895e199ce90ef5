"""Decisions published inside a host MkDocs site: every file the MkDocs plugin adds, rendered in memory.

The plugin (:mod:`evidence_kit.mkdocs_plugin`) adds these files to a host site
under one folder, its *prefix*, and ``verify PREFIX`` renders them again to
compare, as ``build`` and ``verify`` share :func:`.docs_folder.docs_files`.
Layout of the prefix folder (relative to the host's docs folder, and so to its
built site)::

    PREFIX/<id>/          one decision: exactly the files of a built site's decisions/<id>/
                          (pages, charts, chart data, analysis.json, evidence/)
    PREFIX/methodology.md the methodology page the decision pages link to
    PREFIX/assets/        charts.js, extra.css and the vendored Vega bundle
    PREFIX/manifest.json  written by the plugin once MkDocs has built the pages (signed with a key)

The host's own pages, theme and navigation are not rendered here: they are the host's.
"""

from __future__ import annotations

from pathlib import Path

from ..analyze import Analysis
from ..errors import BadInput
from ..model.evidence import DecisionEvidence
from .docs_folder import asset_files, methodology_page, mkdocs_config
from .layout import METHODOLOGY, RESERVED, embedded_decision, embedded_names
from .markdown import environment
from .pages import decision_files

__all__ = ["embedded_files", "embedded_config", "embedded_decision", "embedded_names", "RESERVED", "METHODOLOGY"]


def embedded_files(loaded: list[tuple[DecisionEvidence, Analysis]]) -> dict[str, bytes]:
    """Every file of the prefix folder but its manifest, keyed by path relative to the prefix."""
    env = environment()
    files: dict[str, bytes] = {}
    for evidence, analysis in loaded:
        did = analysis.decision.id or ""
        if did in RESERVED:
            raise BadInput(
                f"decision id {did!r} is a name the plugin's folder uses ({', '.join(RESERVED)}); give the decision another id",
                Path(evidence.source) / "decision.toml",
            )
        files.update(decision_files(evidence, analysis, env, base=did, methodology=f"../{METHODOLOGY}"))
    files[METHODOLOGY] = methodology_page(env, [a for _, a in loaded])
    files.update(asset_files())
    return files


def embedded_config() -> bytes:
    """The generated ``mkdocs.yml`` of a site with no decision: the plugin renders the decision pages with
    its Markdown extensions (not the host's), and ``verify`` reads the pages' expected text with them."""
    return mkdocs_config(environment(), [])
