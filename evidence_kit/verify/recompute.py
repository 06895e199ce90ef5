"""Recompute every published figure from the journals and compare it with what was published.

The figures come from :func:`evidence_kit.analyze.analyze`, the code the site
used. In a built site the docs folder is regenerated from the recomputed
analyses with the site's own rendering code (:mod:`evidence_kit.render`) and
compared with the published files in ways no MkDocs or Material version
changes: the analysis and chart data field by field, the site's own scripts and
styles byte for byte, each page by the text a reader sees (:mod:`.page_text`)
and where its images and links lead, and every chart (its whole spec, its SVG
and the vendored Vega scripts) against what the evidence derives, whatever the
site records. What MkDocs and Material write (the markup around the article,
the theme's files) is compared by the ``sources`` check's rebuild, when the
toolchain that built the site is installed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..analyze import DEFINITIONS, Analysis, analyze
from ..attest.keys import PUBLIC_KEY_NAME
from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..attest.statement import PUBLICATION_FIELD, PUBLISHED_AS_SITE, PUBLISHED_BY_PLUGIN
from ..model.evidence import DecisionEvidence, TrialEvidence
from ..render.article import article_html, page_title
from ..render.docs_folder import (
    CONFIG_NAME,
    DECISIONS_DIR,
    SITE_NAME,
    docs_files,
    evidence_decision,
    is_evidence_copy,
    order_decisions,
    published_name,
)
from ..render.embedded import embedded_config, embedded_decision, embedded_files, embedded_names
from ..render.toolchain import toolchain_bound
from ..version import __version__
from .article_links import pointer_mismatches
from .compare import Mismatch, csv_mismatches, json_mismatches
from .page_text import (
    TOKEN,
    PageText,
    chrome_figures,
    external_urls,
    is_figure,
    markup_mismatches,
    page_mismatches,
    read_page,
    search_mismatches,
    spec_mismatches,
    title_mismatches,
)
from .toolchain_record import CHART_PACKAGES, not_proven_with_other_versions
from .verification import CheckResult, Context, Problem

__all__ = [
    "check_figures",
    "site_decisions",
    "site_docs",
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
MAX_LISTED = 50  # per file: enough to see the pattern, not a flood


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


def site_docs(ctx: Context, analyses: dict[str, Analysis] | None = None) -> dict[str, bytes]:
    """The whole docs folder (``site/...``) and ``mkdocs.yml``, as the site builder writes them for the
    decisions found, in the site's order: rendered once per verification (the figures and sources
    checks share it). Empty when the folder holds no site decision."""
    if ctx.docs is None:
        sites = site_decisions(ctx)
        if analyses is None:
            analyses = {unit: analyze(ctx.evidence[unit]) for unit in sites}
        pairs = [(ctx.evidence[unit], analyses[unit]) for unit in sites]
        ctx.docs = docs_files(order_decisions(pairs)) if pairs else {}  # type: ignore[arg-type]
    return ctx.docs


@dataclass
class _Pages:
    """Every published page read once; what they show outside their article is judged once all titles are known."""

    config: bytes
    host: bool = False  # pages of a host MkDocs site (the plugin): only their articles and own titles are ours
    read: dict[str, PageText] = field(default_factory=dict)
    title_tokens: set[str] = field(default_factory=lambda: set(TOKEN.findall(SITE_NAME)))
    own: dict[str, set[str]] = field(default_factory=dict)

    def compare(self, rel: str, html: str, markdown: bytes, source: str) -> list[Mismatch]:
        """``rel``, published, against the Markdown ``source`` (its path from the same root) it is rendered from."""
        published = self.read[rel] = read_page(html)
        expected = read_page(article_html(markdown, self.config))
        title = page_title(markdown)
        self.title_tokens.update(TOKEN.findall(title or ""))
        self.own[rel] = set(expected.tokens())
        found = page_mismatches(published, expected) + spec_mismatches(published.specs, expected.specs)
        found += pointer_mismatches(published, rel, expected, source)
        found += markup_mismatches(published, host=self.host)
        found += [("link off the site", url, "(none: the site is offline)") for url in external_urls(published, article_only=self.host)]
        if title is not None:
            # In a host site the rest of the <title> is the host's site name, whatever figures it holds.
            allowed = set(TOKEN.findall(published.title if self.host else f"{title} {SITE_NAME}"))
            found += title_mismatches(published, title, allowed)
        return found

    def chrome_problems(self, ctx: Context) -> list[Problem]:
        """Header, navigation, footer and tooltips may show no figure but those of page titles and the page's own."""
        out = []
        for rel, own in sorted(self.own.items()):
            extra = chrome_figures(self.read[rel], self.title_tokens | own)
            if extra:
                ctx.reported.add(rel)
                out.append(
                    Problem(
                        ctx.where(rel),
                        f"outside the article: published {' '.join(extra[:20])}, recomputed (only figures of page titles and of the page itself)",
                    )
                )
        return out

    def other_pages(self, ctx: Context) -> list[Problem]:
        """Every page nothing regenerates but MkDocs writes (``404.html``) holds only the markup build writes, and
        no figure but those of page titles (its words are the rebuild's to compare)."""
        out = []
        for rel in ctx.files:
            if rel.endswith(".html") and rel not in self.read and rel not in ctx.reported:
                page = self.read[rel] = read_page((ctx.root / rel).read_text("utf-8", "replace"))
                found = markup_mismatches(page, host=self.host)
                allowed = self.title_tokens | {"404"}  # MkDocs' not-found page says its status
                extra = chrome_figures(page, allowed) + [t for t in page.tokens() if is_figure(t) and t not in allowed]
                if extra:
                    found.append(("figures", " ".join(extra[:20]), "(only figures of page titles)"))
                out += [
                    Problem(ctx.where(rel), f"{figure}: published {published}, recomputed {recomputed}") for figure, published, recomputed in found
                ]
                if found:
                    ctx.reported.add(rel)
        return out

    def search_problems(self, ctx: Context) -> list[Problem]:
        """MkDocs' search index may only repeat what its pages show (the pages themselves are compared)."""
        if SEARCH_INDEX not in ctx.files:
            return []
        where = ctx.where(SEARCH_INDEX)
        try:
            index = json.loads((ctx.root / SEARCH_INDEX).read_bytes())
        except (ValueError, RecursionError) as err:  # nested past the parser's stack: a problem of this file
            found = [Problem(where, f"not JSON ({err})")]
        else:
            pages = {
                rel: self.read.get(rel) or read_page((ctx.root / rel).read_text("utf-8", "replace")) for rel in ctx.files if rel.endswith(".html")
            }
            found = [
                Problem(where, f"{figure}: published {published}, recomputed {recomputed}")
                for figure, published, recomputed in list(search_mismatches(index, pages))[:MAX_LISTED]
            ]
        if found:
            ctx.reported.add(SEARCH_INDEX)
        return found


def _compare_file(ctx: Context, rel: str, expected: bytes, source: str, pages: _Pages) -> tuple[list[Mismatch], str | None]:
    """``(mismatches, why it could not be compared)`` for one published file against its regenerated ``source``."""
    if rel not in ctx.files:
        return [], "missing: the site should publish it"
    data = (ctx.root / rel).read_bytes()
    if rel.endswith(".html"):
        return pages.compare(rel, data.decode("utf-8", "replace"), expected, source), None
    if rel.endswith(".json"):
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError) as err:
            return [("(document)", f"not JSON ({err})", "a JSON document")], None
        want = json.loads(expected)
        older = _other_schema(doc, want)
        if older:
            return [older], None
        return list(json_mismatches(doc, want, ignore=frozenset({"tool_version"}))), None
    if rel.endswith(".csv"):
        return list(csv_mismatches(data, expected)), None
    # Every other file byte for byte, a chart's SVG and the vendored Vega scripts too: a reader without scripts
    # sees the SVG, and the scripts draw every spec, so neither is left to a rebuild the record can skip.
    what = "(chart bytes)" if toolchain_bound(rel) else "(bytes)"
    return ([(what, f"sha256 differs ({len(data)} bytes)", f"{len(expected)} bytes")] if data != expected else []), None


def _other_schema(doc: object, want: object) -> Mismatch | None:
    """One mismatch, not hundreds, for a document another version of the analysis wrote (an
    ``analysis.json`` of ``evidence-kit/analysis/v1`` against this version's v2): still a failure."""
    if not (isinstance(doc, dict) and isinstance(want, dict) and "schema" in want) or doc.get("schema") == want["schema"]:
        return None
    by = f" by evidence-kit {doc['tool_version']}" if isinstance(doc.get("tool_version"), str) else ""
    return (
        "schema",
        f"{doc.get('schema')!s}{by}",
        f"{want['schema']} (this evidence-kit recomputes only that version; verify the site with the version that built it)",
    )


Published = tuple[str, bytes, str]  # (published file, its regenerated source, the source's path from the same root)


def _site_published(docs: dict[str, bytes]) -> list[Published]:
    """``(published file, its regenerated source, its path)`` for every file the docs folder becomes (the
    evidence copies aside: their bytes are the digests')."""
    out = []
    for key, expected in sorted(docs.items()):
        rel = published_name(key)
        if rel is not None and not is_evidence_copy(rel):
            out.append((rel, expected, key.split("/", 1)[1]))
    return out


def _embedded_published(ctx: Context, embedded: dict[str, str], analyses: dict[str, Analysis]) -> list[Published]:
    """``(published file, its regenerated source, its path)`` for every file the MkDocs plugin adds to its prefix folder
    but the evidence copies. A page is ``x.html`` or, with the host's ``use_directory_urls``, ``x/index.html``:
    whichever is there (a second copy is a file nothing generated)."""
    pairs = [(ctx.evidence[unit], analyses[unit]) for unit in embedded]
    docs = embedded_files(order_decisions(pairs))  # type: ignore[arg-type]
    copies = tuple(f"{unit}/" for unit in embedded)
    out = []
    for key, expected in sorted(docs.items()):
        if key.startswith(copies):
            continue
        names = embedded_names(key)
        out.append((next((n for n in names if n in ctx.files), names[0]), expected, key))
    return out


def _compare_docs(ctx: Context, files: list[Published], pages: _Pages, seen: set[str]) -> tuple[list[Problem], int]:
    """Every published file against its regenerated source."""
    problems: list[Problem] = []
    compared = 0
    for rel, expected, source in files:
        seen.add(rel)
        mismatches, missing = _compare_file(ctx, rel, expected, source, pages)
        compared += 1
        if missing:
            problems.append(Problem(ctx.where(rel), missing))
        for figure, published, recomputed in mismatches[:MAX_LISTED]:
            problems.append(Problem(ctx.where(rel), f"{figure}: published {published}, recomputed {recomputed}"))
        if len(mismatches) > MAX_LISTED:
            problems.append(Problem(ctx.where(rel), f"and {len(mismatches) - MAX_LISTED} more mismatches"))
        if missing or mismatches:
            ctx.reported.add(rel)
    return problems, compared


def _not_generated(ctx: Context, seen: set[str], sites: dict[str, str], mkdocs_own: tuple[str, ...], theme: tuple[str, ...] = ()) -> list[Problem]:
    """Files of a built site (or a plugin's prefix folder) that nothing regenerated: not evidence, not
    signing, not ``mkdocs_own`` (MkDocs' own files, by name) nor under ``theme`` (Material's folders), in a built site."""
    evidence = tuple(unit + "/" for unit in sites)
    out = []
    for rel in ctx.files:
        themed = rel.startswith(theme) and not rel.endswith((".html", ".htm"))  # the theme ships no page
        if rel in seen or rel in SIGNING_FILES or rel in mkdocs_own or themed or rel.startswith(evidence):
            continue
        ctx.reported.add(rel)
        out.append(Problem(ctx.where(rel), "published, but not generated from the evidence (a page or file evidence-kit build does not write)"))
    return out


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


def chart_toolchain_problems(ctx: Context, problems: list[Problem]) -> list[Problem]:
    """When a chart (its spec, its SVG, the vendored Vega scripts) is not what this verifier derives, whether the
    packages that write charts are those the site records (:mod:`.toolchain_record`)."""
    if not any(p.what.startswith(("chart ", "(chart bytes)")) for p in problems):
        return []
    return not_proven_with_other_versions(ctx, ctx.label, "charts", CHART_PACKAGES)


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
    if is_built_site(ctx):
        # Every page of a site is regenerated or reported: a page nothing regenerates is unchecked text.
        seen: set[str] = set()
        docs = site_docs(ctx, analyses) if sites else {}
        pages = _Pages(config=docs.get(CONFIG_NAME, b""))
        if sites:
            found, compared = _compare_docs(ctx, _site_published(docs), pages, seen)
            problems += found + pages.chrome_problems(ctx)
        problems += _not_generated(ctx, seen, sites, MKDOCS_OWN, THEME_DIRS)
        problems += pages.other_pages(ctx) + pages.search_problems(ctx)
    elif embedded:
        # Published inside a host site: each article, chart and data file is ours; the chrome, the search
        # index and the theme around them are the host's, outside this folder (the report says so).
        ctx.host_site = True
        seen = set()
        pages = _Pages(config=embedded_config(), host=True)
        found, compared = _compare_docs(ctx, _embedded_published(ctx, embedded, analyses), pages, seen)
        problems += found + _not_generated(ctx, seen, embedded, ())
    trials = sum(len(e.trials) if not isinstance(e, TrialEvidence) else 1 for e in ctx.evidence.values())
    problems += chart_toolchain_problems(ctx, problems)
    if problems:
        detail = f"{len(problems)} published figure(s) or file(s) differ from the recomputation"
        signed_version = ((ctx.predicate or {}).get("tool") or {}).get("version")
        if (sites or embedded) and signed_version and signed_version != __version__:
            # Pages are regenerated with this verifier's templates: wording can differ across versions.
            detail += f" (site signed by evidence-kit {signed_version}, this is {__version__}: verify with that version)"
        return CheckResult(name, "fail", detail, problems)
    if not sites and not embedded:
        return CheckResult(name, "pass", f"recomputed {trials} trial(s); no published pages or analysis here to compare")
    if embedded:
        return CheckResult(
            name,
            "pass",
            f"recomputed {trials} trial(s); {compared} published page(s) and data file(s) "
            "match (decisions published inside a host MkDocs site: each page's article)",
        )
    return CheckResult(name, "pass", f"recomputed {trials} trial(s); {compared} published page(s) and data file(s) match")
