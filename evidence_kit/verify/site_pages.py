"""A published site's files against the files regenerated from its recomputed figures.

:func:`.recompute.check_figures` calls this for a built site or a plugin's prefix folder (a decision
folder has no pages, and verifying one imports none of this): the docs folder is regenerated with the
site's own rendering code (:mod:`evidence_kit.render`) and compared with the published files in ways no
MkDocs or Material version changes: the analysis and chart data field by field, the site's own scripts
and styles byte for byte, each page by the text a reader sees (:mod:`.page_text`) and where its images
and links lead, and every chart (its whole spec, its SVG and the vendored Vega scripts) against what the
evidence derives, whatever the site records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..analyze import Analysis, analyze
from ..render.article import article_html, page_title
from ..render.docs_folder import docs_files
from ..render.embedded import embedded_config, embedded_files
from ..render.layout import CONFIG_NAME, SITE_NAME, embedded_names, is_evidence_copy, order_decisions, published_name
from ..render.toolchain import toolchain_bound
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
from .recompute import MKDOCS_OWN, PAGE_SUFFIXES, SEARCH_INDEX, SIGNING_FILES, THEME_DIRS, site_decisions
from .toolchain_record import CHART_PACKAGES, not_proven_with_other_versions
from .verification import Context, Problem

__all__ = ["published_problems", "site_docs"]

MAX_LISTED = 50  # per file: enough to see the pattern, not a flood


def published_problems(ctx: Context, analyses: dict[str, Analysis], sites: dict[str, str], embedded: dict[str, str]) -> tuple[list[Problem], int]:
    """``(problems, files compared)`` of a built site or of a plugin's prefix folder, against the recomputation."""
    seen: set[str] = set()
    problems: list[Problem] = []
    compared = 0
    if not embedded:
        # Every page of a site is regenerated or reported: a page nothing regenerates is unchecked text.
        docs = site_docs(ctx, analyses) if sites else {}
        pages = _Pages(config=docs.get(CONFIG_NAME, b""))
        if sites:
            found, compared = _compare_docs(ctx, _site_published(docs), pages, seen)
            problems += found + pages.chrome_problems(ctx)
        problems += _not_generated(ctx, seen, sites, MKDOCS_OWN, THEME_DIRS)
        problems += pages.other_pages(ctx) + pages.search_problems(ctx)
    else:
        # Published inside a host site: each article, chart and data file is ours; the chrome, the search
        # index and the theme around them are the host's, outside this folder (the report says so).
        ctx.host_site = True
        pages = _Pages(config=embedded_config(), host=True)
        found, compared = _compare_docs(ctx, _embedded_published(ctx, embedded, analyses), pages, seen)
        problems += found + _not_generated(ctx, seen, embedded, ())
    return problems + chart_toolchain_problems(ctx, problems), compared


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
        themed = rel.startswith(theme) and not rel.lower().endswith(PAGE_SUFFIXES)  # the theme ships no page
        if rel in seen or rel in SIGNING_FILES or rel in mkdocs_own or themed or rel.startswith(evidence):
            continue
        ctx.reported.add(rel)
        out.append(Problem(ctx.where(rel), "published, but not generated from the evidence (a page or file evidence-kit build does not write)"))
    return out


def chart_toolchain_problems(ctx: Context, problems: list[Problem]) -> list[Problem]:
    """When a chart (its spec, its SVG, the vendored Vega scripts) is not what this verifier derives, whether the
    packages that write charts are those the site records (:mod:`.toolchain_record`)."""
    if not any(p.what.startswith(("chart ", "(chart bytes)")) for p in problems):
        return []
    return not_proven_with_other_versions(ctx, ctx.label, "charts", CHART_PACKAGES)
