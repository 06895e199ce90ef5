"""Recompute every published figure from the journals and compare it with what was published.

The figures come from :func:`evidence_kit.analyze.analyze`, the code the site
used. A decision folder's figures are recomputed and checked against its signed
predicate. In a built site or a plugin's prefix folder the published files are
then compared with the files regenerated from the recomputed analyses
(:mod:`.site_pages`, imported only then). What MkDocs and Material write (the
markup around the article, the theme's files) is compared by the ``sources``
check's rebuild, when the toolchain that built the site is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..analyze import DEFINITIONS, Analysis, analyze
from ..attest.keys import PUBLIC_KEY_NAME
from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..attest.statement import PUBLICATION_FIELD, PUBLISHED_AS_SITE, PUBLISHED_BY_PLUGIN
from ..model.evidence import DecisionEvidence, TrialEvidence
from ..render.layout import DECISIONS_DIR, embedded_decision, evidence_decision
from ..version import __version__
from .verification import CheckResult, Context, Problem

__all__ = [
    "check_figures",
    "site_decisions",
    "is_built_site",
    "embedded_decisions",
    "SEARCH_INDEX",
    "SIGNING_FILES",
    "THEME_DIRS",
    "MKDOCS_OWN",
]

# Written by signing, not generated from the evidence: checked by the signature, digests and completeness.
SEARCH_INDEX = "search/search_index.json"
SIGNING_FILES = frozenset({MANIFEST_NAME, ENVELOPE_NAME, PUBLIC_KEY_NAME})
# Material's theme files, copied verbatim from the installed package: compared by the rebuild.
THEME_DIRS = ("assets/javascripts/", "assets/stylesheets/", "assets/images/")
# MkDocs' own output: the 404 page and the search index (checked against the pages here, byte for byte
# by the rebuild). Exact names: any other file under search/ is a file nothing generates.
MKDOCS_OWN = ("404.html", SEARCH_INDEX, "sitemap.xml")
# What a browser shows as a document, whatever the case of its name (a case-insensitive server serves
# INDEX.HTML as index.html): no evidence folder holds one, and only a site's or a prefix folder's are compared.
# XML among them: Python's static server sends .xml and .xpdl as application/xml and .svgz as SVG, Chromium
# opens .xbl, .rss and .atom files as XML, and each shows the XHTML it holds as a page, running its scripts.
PAGE_SUFFIXES = (".html", ".htm", ".shtml", ".shtm", ".xhtml", ".xht", ".xhtm", ".svg", ".svgz", ".xml", ".xpdl", ".xbl", ".rss", ".atom")


def _decisions_at(ctx: Context, folder_of: Callable[[str], str | None]) -> dict[str, str]:
    """Evidence unit -> the decision folder ``folder_of`` places it in, for each decision unit it places."""
    out = {}
    for unit, evidence in ctx.evidence.items():
        base = folder_of(unit)
        if isinstance(evidence, DecisionEvidence) and base is not None:
            out[unit] = base
    return out


def site_decisions(ctx: Context) -> dict[str, str]:
    """Evidence unit -> its decision's folder in a built site (``decisions/<id>``).

    A unit belongs to a site when it sits at ``decisions/<id>/evidence``: judged
    by where it is, never by which generated files are present, so deleting a
    decision's ``analysis.json`` cannot switch its pages' comparison off.
    """
    return _decisions_at(ctx, evidence_decision)


def embedded_decisions(ctx: Context) -> dict[str, str]:
    """Evidence unit -> its decision's folder (``<id>``) in a prefix folder the MkDocs plugin published
    (``PREFIX/<id>/evidence``); empty for a built site. Judged, like :func:`site_decisions`, by where the
    evidence sits, so no deleted page can switch the comparison of the others off."""
    return {} if is_built_site(ctx) else _decisions_at(ctx, embedded_decision)


def is_built_site(ctx: Context) -> bool:
    """A built site: it has a root ``index.html`` or anything under ``decisions/``."""
    return "index.html" in ctx.files or any(rel.startswith(DECISIONS_DIR + "/") for rel in ctx.files)


_LAYOUTS = {PUBLISHED_AS_SITE: "a built site", PUBLISHED_BY_PLUGIN: "a MkDocs plugin's prefix folder"}


def _predicate_problems(ctx: Context, analyses: dict[str, Analysis]) -> list[Problem]:
    """The signed predicate must name exactly the decisions and trials found, and our statistics; where it says
    how the folder was published (a built site, a plugin's prefix folder), the folder's layout must be that. A
    statement that says nothing of it (``sign_tree`` alone, or before the field existed) is checked by layout."""
    predicate: dict[str, Any] = ctx.predicate or {}
    where = ctx.where(ENVELOPE_NAME)
    found_trials = sorted({t.trial_id for a in analyses.values() for t in a.trials})
    found_decisions = sorted({a.decision.id for a in analyses.values() if a.decision.id})
    problems = []
    for name, found in (("trials", found_trials), ("decisions", found_decisions)):
        if sorted(predicate.get(name, [])) != found:
            problems.append(Problem(where, f"signed predicate names {name} {predicate.get(name)}, the folder holds {found}"))
    layout = PUBLISHED_AS_SITE if is_built_site(ctx) else PUBLISHED_BY_PLUGIN if embedded_decisions(ctx) else None
    claimed = predicate.get(PUBLICATION_FIELD)
    if layout is not None and claimed is not None and claimed != layout:
        problems.append(
            Problem(where, f"the folder is laid out as {_LAYOUTS[layout]}, but the signed statement says it was published as {claimed!r}")
        )
    elif layout is None and claimed is not None:
        problems.append(Problem(where, f"the signed statement says the folder was published as {claimed!r}, but it holds no published pages"))
    return problems + _version_problems(where, predicate, analyses)


def _version_problems(where: str, predicate: dict[str, Any], analyses: dict[str, Analysis]) -> list[Problem]:
    """The statistics the predicate names must be the version the trials' rules declare (v3 where none does)."""
    version = max((a.definitions["version"] for a in analyses.values()), default=DEFINITIONS["version"])
    if predicate.get("statistics") == version:
        return []
    return [Problem(where, f"signed with statistics {predicate.get('statistics')!r}; this verifier recomputes with {version!r}")]


def check_figures(ctx: Context) -> CheckResult:
    """Recompute every figure from the journals; compare with the published analysis, chart data and pages."""
    name = "figures"
    if not ctx.evidence:
        return CheckResult(name, "fail", "nothing recomputed", [Problem(ctx.label, "no evidence loaded (see the contract check)")])
    analyses = {unit: analyze(evidence) for unit, evidence in sorted(ctx.evidence.items())}
    ctx.analyses = analyses  # the history check names the decisions verified
    problems = _predicate_problems(ctx, analyses) if ctx.predicate is not None else []
    compared = 0
    sites = site_decisions(ctx)
    embedded = embedded_decisions(ctx)
    if is_built_site(ctx) or embedded:
        # Only a site needs the renderer, Markdown and the HTML parser: a decision folder imports none of them.
        from .site_pages import published_problems

        found, compared = published_problems(ctx, analyses, sites, embedded)
        problems += found
    else:
        problems += _pages_outside_a_site(ctx)
    trials = sum(len(e.trials) if not isinstance(e, TrialEvidence) else 1 for e in ctx.evidence.values())
    return _figures_result(ctx, problems, trials, compared, published=bool(sites or embedded), host=bool(embedded))


def _pages_outside_a_site(ctx: Context) -> list[Problem]:
    """A page in a folder laid out as neither a built site nor a plugin's prefix folder: nothing regenerates it,
    so a reader would read words no check compared with the evidence."""
    return [
        Problem(
            ctx.where(rel),
            "a page, but the folder is laid out as neither a built site (index.html, decisions/<id>/evidence) nor "
            "a MkDocs plugin's prefix folder (<id>/evidence): nothing compares it with the evidence",
        )
        for rel in ctx.files
        if rel.lower().endswith(PAGE_SUFFIXES)
    ]


def _figures_result(ctx: Context, problems: list[Problem], trials: int, compared: int, *, published: bool, host: bool) -> CheckResult:
    """The figures check's line: what was recomputed, and what it was compared with."""
    name = "figures"
    if problems:
        detail = f"{len(problems)} published figure(s) or file(s) differ from the recomputation"
        signed_version = ((ctx.predicate or {}).get("tool") or {}).get("version")
        if published and signed_version and signed_version != __version__:
            # Pages are regenerated with this verifier's templates: wording can differ across versions.
            detail += f" (site signed by evidence-kit {signed_version}, this is {__version__}: verify with that version)"
        return CheckResult(name, "fail", detail, problems)
    if not published:
        return CheckResult(name, "pass", f"recomputed {trials} trial(s); no published pages or analysis here to compare")
    if host:
        return CheckResult(
            name,
            "pass",
            f"recomputed {trials} trial(s); {compared} published page(s) and data file(s) "
            "match (decisions published inside a host MkDocs site: each page's article)",
        )
    return CheckResult(name, "pass", f"recomputed {trials} trial(s); {compared} published page(s) and data file(s) match")
