"""Where a site's files are: the names and path rules of a built site and of a plugin's prefix folder.

Nothing here renders, so ``verify`` can tell a decision folder from a site, and find a site's
decisions, without importing the template engine, Markdown or an HTML parser (a decision folder
needs none of them). :mod:`.docs_folder` and :mod:`.embedded` render the files these rules place.

Layout of a built site folder ``SITE``: ``SITE/mkdocs.yml``, the generated docs under ``SITE/site/``,
the HTML under ``SITE/public/``; each decision at ``decisions/<id>/``, its evidence copy at
``decisions/<id>/evidence``. In a plugin's prefix folder each decision is at ``<id>/``, its evidence
at ``<id>/evidence``, beside ``methodology.md`` and ``assets/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..analyze import Analysis
    from ..model.evidence import DecisionEvidence

__all__ = [
    "SITE_NAME",
    "CONFIG_NAME",
    "DOCS_DIR",
    "PUBLIC_DIR",
    "OWNED",
    "DECISIONS_DIR",
    "EVIDENCE_DIR",
    "METHODOLOGY",
    "VEGA_SCRIPT",
    "RESERVED",
    "order_decisions",
    "published_name",
    "evidence_decision",
    "is_evidence_copy",
    "embedded_decision",
    "embedded_names",
]

SITE_NAME = "evidence-kit decisions"
CONFIG_NAME = "mkdocs.yml"
DOCS_DIR = "site"
PUBLIC_DIR = "public"
OWNED = (CONFIG_NAME, DOCS_DIR, PUBLIC_DIR)  # the only entries of SITE a build writes (and replaces)
DECISIONS_DIR = "decisions"
EVIDENCE_DIR = "evidence"
METHODOLOGY = "methodology.md"
VEGA_SCRIPT = "vega-bundle.js"  # the vendored Vega scripts every chart page loads, under assets/
# Entries of the prefix folder that are not decisions, and the folder that marks a built site:
# a decision id may not take their place (nor the methodology page's folder under directory URLs).
RESERVED = ("assets", METHODOLOGY, METHODOLOGY.removesuffix(".md"), EVIDENCE_DIR, DECISIONS_DIR)


def order_decisions(loaded: list[tuple[DecisionEvidence, Analysis]]) -> list[tuple[DecisionEvidence, Analysis]]:
    """The site's order: newest first, then by id (``verify`` regenerates the index in the same order)."""
    ordered = sorted(loaded, key=lambda pair: pair[0].decision.id)
    ordered.sort(key=lambda pair: pair[0].decision.date, reverse=True)
    return ordered


def published_name(key: str) -> str | None:
    """Where MkDocs publishes a file of :func:`.docs_folder.docs_files` under ``public/``: ``site/x.md`` is
    ``x.html``, ``site/x.json`` is ``x.json``; ``mkdocs.yml`` is not published (``None``)."""
    if not key.startswith(DOCS_DIR + "/"):
        return None
    rel = key[len(DOCS_DIR) + 1 :]
    return f"{rel[:-3]}.html" if rel.endswith(".md") else rel


def evidence_decision(folder: str) -> str | None:
    """The decision folder (``decisions/<id>``) whose evidence copy ``folder`` is (``decisions/<id>/evidence``)."""
    parts = folder.split("/")
    return "/".join(parts[:2]) if len(parts) == 3 and parts[0] == DECISIONS_DIR and parts[2] == EVIDENCE_DIR else None


def is_evidence_copy(rel: str) -> bool:
    """A published file inside a decision's copy of its evidence (``decisions/<id>/evidence/...``)."""
    parts = rel.split("/")
    return len(parts) > 3 and evidence_decision("/".join(parts[:3])) is not None


def embedded_decision(folder: str) -> str | None:
    """The decision (``<id>``) whose evidence copy ``folder`` is, in a prefix folder (``<id>/evidence``)."""
    parts = folder.split("/")
    return parts[0] if len(parts) == 2 and parts[1] == EVIDENCE_DIR and parts[0] not in RESERVED else None


def embedded_names(key: str) -> tuple[str, ...]:
    """Where MkDocs may publish a file of :func:`.embedded.embedded_files`: a page ``x.md`` as ``x.html``, or as
    ``x/index.html`` with the host's ``use_directory_urls`` (``index.md`` is ``index.html`` either way);
    any other file under its own name."""
    if not key.endswith(".md"):
        return (key,)
    stem = key[:-3]
    if stem == "index" or stem.endswith("/index"):
        return (f"{stem}.html",)
    return (f"{stem}.html", f"{stem}/index.html")
