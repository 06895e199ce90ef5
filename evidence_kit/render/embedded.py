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
from .docs_folder import DECISIONS_DIR, EVIDENCE_DIR, asset_files, methodology_page, mkdocs_config
from .markdown import environment
from .pages import decision_files

__all__ = ["embedded_files", "embedded_config", "embedded_decision", "embedded_names", "RESERVED", "METHODOLOGY"]

METHODOLOGY = "methodology.md"
# Entries of the prefix folder that are not decisions, and the folder that marks a built site:
# a decision id may not take their place (nor the methodology page's folder under directory URLs).
RESERVED = ("assets", METHODOLOGY, METHODOLOGY.removesuffix(".md"), EVIDENCE_DIR, DECISIONS_DIR)


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


def embedded_decision(folder: str) -> str | None:
    """The decision (``<id>``) whose evidence copy ``folder`` is, in a prefix folder (``<id>/evidence``)."""
    parts = folder.split("/")
    return parts[0] if len(parts) == 2 and parts[1] == EVIDENCE_DIR and parts[0] not in RESERVED else None


def embedded_names(key: str) -> tuple[str, ...]:
    """Where MkDocs may publish a file of :func:`embedded_files`: a page ``x.md`` as ``x.html``, or as
    ``x/index.html`` with the host's ``use_directory_urls`` (``index.md`` is ``index.html`` either way);
    any other file under its own name."""
    if not key.endswith(".md"):
        return (key,)
    stem = key[:-3]
    if stem == "index" or stem.endswith("/index"):
        return (f"{stem}.html",)
    return (f"{stem}.html", f"{stem}/index.html")
