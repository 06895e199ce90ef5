"""Recompute every published figure from the journals and compare it with what was published.

The figures come from :func:`evidence_kit.analyze.analyze`, the code the site
used. In a built site each decision's pages, analysis document, chart data and
charts are regenerated from the recomputed analysis with the site's own
rendering code, then compared with the published files: the analysis and
chart data field by field, the pages figure by figure.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import markdown
import material

from .. import __version__
from ..analyze import DEFINITIONS, Analysis, analyze
from ..attest.keys import PUBLIC_KEY_NAME
from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..model.evidence import DecisionEvidence, TrialEvidence
from ..render.docs_folder import SITE_NAME, docs_files, order_decisions
from ..render.markdown import environment
from ..render.mkdocs_build import run_mkdocs, source_date_epoch
from ..render.pages import decision_files, decision_folder
from .compare import (
    Mismatch, chrome_tokens, csv_mismatches, external_urls, json_mismatches, page_specs, page_tokens, search_mismatches,
    TOKEN, spec_mismatches, theme_words, title_mismatches, token_mismatches,
)
from .verification import CheckResult, Context, Problem

__all__ = ["check_figures", "site_decisions", "regenerate_pages", "site_docs", "is_built_site"]

EVIDENCE_DIR = "evidence"
DECISIONS_DIR = "decisions"
# Written by signing, not generated from the evidence: checked by the signature, digests and completeness.
SEARCH_INDEX = "search/search_index.json"
SIGNING_FILES = frozenset({MANIFEST_NAME, ENVELOPE_NAME, PUBLIC_KEY_NAME})
# Material's theme files, copied verbatim from the installed package: compared with it byte for byte.
THEME_DIRS = ("assets/javascripts/", "assets/stylesheets/", "assets/images/")
# MkDocs' own output: the 404 page and the search index (checked against the pages instead);
# see docs/verify.md for what is not compared.
MKDOCS_OWN = ("404.html", "search/", "sitemap.xml")
MAX_LISTED = 50  # per file: enough to see the pattern, not a flood
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
# What MkDocs is configured with (templates/mkdocs.yml.j2) plus the ones MkDocs always adds
# (fenced_code, used by the how-to-verify page), so a regenerated page renders alike.
MD_EXTENSIONS = ["admonition", "attr_list", "fenced_code", "tables", "toc"]


def site_decisions(ctx: Context) -> dict[str, str]:
    """Evidence unit -> its decision's folder in a built site (``decisions/<id>``).

    A unit belongs to a site when it sits at ``decisions/<id>/evidence``: judged
    by where it is, never by which generated files are present, so deleting a
    decision's ``analysis.json`` cannot switch its pages' comparison off.
    """
    out = {}
    for unit, evidence in ctx.evidence.items():
        if not isinstance(evidence, DecisionEvidence) or not unit.endswith("/" + EVIDENCE_DIR):
            continue
        base = unit[: -len(EVIDENCE_DIR) - 1]
        if base.startswith(DECISIONS_DIR + "/") and "/" not in base[len(DECISIONS_DIR) + 1:]:
            out[unit] = base
    return out


def is_built_site(ctx: Context) -> bool:
    """A built site: it has a root ``index.html`` or anything under ``decisions/``."""
    return "index.html" in ctx.files or any(rel.startswith(DECISIONS_DIR + "/") for rel in ctx.files)


def _search_problems(ctx: Context) -> list[Problem]:
    """MkDocs' search index may only repeat what its pages show (the pages themselves are compared)."""
    if SEARCH_INDEX not in ctx.files:
        return []
    where = ctx.where(SEARCH_INDEX)
    try:
        index = json.loads((ctx.root / SEARCH_INDEX).read_bytes())
    except ValueError as err:
        return [Problem(where, f"not JSON ({err})")]
    pages = {rel: (ctx.root / rel).read_text("utf-8", "replace") for rel in ctx.files if rel.endswith(".html")}
    return [Problem(where, f"{figure}: published {published}, recomputed {recomputed}")
            for figure, published, recomputed in list(search_mismatches(index, pages))[:MAX_LISTED]]


def _theme_problems(ctx: Context) -> list[Problem]:
    """Every theme file the site ships is the installed mkdocs-material's file of that name, byte for byte."""
    theme = Path(material.__file__).resolve().parent / "templates"
    release = metadata.version("mkdocs-material")
    problems = []
    for rel in ctx.files:
        if not rel.startswith(THEME_DIRS):
            continue
        installed = theme / rel
        if not installed.is_file():
            problems.append(Problem(ctx.where(rel), f"not a file of the installed mkdocs-material {release} "
                                                    "(verify with the versions that built the site)"))
        elif installed.read_bytes() != (ctx.root / rel).read_bytes():
            problems.append(Problem(ctx.where(rel), f"differs from the installed mkdocs-material {release}'s file"))
    return problems


def _not_generated(ctx: Context, compared: set[str], sites: dict[str, str]) -> list[Problem]:
    """Files of a built site that nothing regenerated: not evidence, not signing, not MkDocs' own output."""
    evidence = tuple(unit + "/" for unit in sites)
    out = []
    for rel in ctx.files:
        if rel in compared or rel in SIGNING_FILES or rel.startswith((*evidence, *MKDOCS_OWN, *THEME_DIRS)):
            continue
        out.append(Problem(ctx.where(rel), "published, but not generated from the evidence (a page or file "
                                           "evidence-kit build does not write)"))
    return out


def regenerate_pages(evidence: DecisionEvidence, analysis: Analysis) -> dict[str, bytes]:
    """Every generated file of one decision, rendered by the site builder from ``analysis``."""
    prefix = decision_folder(analysis) + "/"
    return {k[len(prefix):]: v for k, v in decision_files(evidence, analysis, environment()).items() if k.startswith(prefix)}


def _markdown_html(text: str) -> str:
    return markdown.markdown(FRONT_MATTER.sub("", text), extensions=MD_EXTENSIONS)


def _front_matter_title(markdown_text: str) -> str | None:
    """The ``title`` of a generated page's front matter, as MkDocs shows it (HTML entities resolved)."""
    match = FRONT_MATTER.match(markdown_text)
    title = re.search(r"^title: (.*)$", match.group(0), re.M) if match else None
    return html_lib.unescape(json.loads(title.group(1))) if title else None


@dataclass
class _Chrome:
    """What pages show outside their article, checked once every page title is known."""

    titles: set[str] = field(default_factory=set)
    pages: list[tuple[str, list[str], set[str]]] = field(default_factory=list)

    def problems(self, ctx: Context) -> list[Problem]:
        """Header, navigation and footer may only show page titles, the page's own words and the theme's."""
        allowed = self.titles | theme_words() | set(TOKEN.findall(SITE_NAME))
        out = []
        for rel, shown, own in self.pages:
            extra = [t for t in shown if t not in allowed and t not in own]
            if extra:
                out.append(Problem(ctx.where(rel), f"outside the article: published {' '.join(extra[:20])}, "
                                                   "recomputed (only page titles, the page's words and the theme's)"))
        return out


def _compare_file(
    ctx: Context, rel: str, expected: bytes, kind: str, chrome: _Chrome | None = None
) -> tuple[list[Mismatch], str | None]:
    path = ctx.root / rel
    if rel not in ctx.files:
        return [], "missing: the site should publish it"
    data = path.read_bytes()
    if kind == "page":
        html, regenerated = data.decode("utf-8", "replace"), _markdown_html(expected.decode("utf-8"))
        found = list(token_mismatches(page_tokens(html), page_tokens(regenerated)))
        found += spec_mismatches(page_specs(html), page_specs(regenerated))
        found += [("link off the site", url, "(none: the site is offline)") for url in external_urls(html)]
        title = _front_matter_title(expected.decode("utf-8"))
        if title is not None:
            found += title_mismatches(html, title, SITE_NAME)
        if chrome is not None:
            chrome.titles.update(TOKEN.findall(title or ""))
            chrome.pages.append((rel, chrome_tokens(html), set(page_tokens(regenerated))))
        return found, None
    if kind == "json":
        try:
            doc = json.loads(data)
        except ValueError as err:
            return [("(document)", f"not JSON ({err})", "a JSON document")], None
        return list(json_mismatches(doc, json.loads(expected), ignore=frozenset({"tool_version"}))), None
    if kind == "csv":
        return list(csv_mismatches(data, expected)), None
    return ([("(bytes)", f"sha256 differs ({len(data)} bytes)", f"{len(expected)} bytes")] if data != expected else []), None


def _kind(name: str) -> str:
    for suffix, kind in ((".md", "page"), (".json", "json"), (".csv", "csv")):
        if name.endswith(suffix):
            return kind
    return "bytes"


def _published_name(rel: str) -> str:
    """Where a generated docs file is published: ``x.md`` becomes ``x.html``; the rest keep their name."""
    return f"{rel[:-3]}.html" if rel.endswith(".md") else rel


def _compare_files(
    ctx: Context, generated: dict[str, bytes], base: str = "", seen: set[str] | None = None,
    chrome: _Chrome | None = None,
) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    compared = 0
    for rel, expected in sorted(generated.items()):
        if rel.startswith(EVIDENCE_DIR + "/") or "/" + EVIDENCE_DIR + "/" in rel:
            continue  # the evidence itself: its bytes are checked by the digests
        target = f"{base}/{_published_name(rel)}" if base else _published_name(rel)
        if seen is not None:
            seen.add(target)
        mismatches, missing = _compare_file(ctx, target, expected, _kind(rel), chrome)
        compared += 1
        if missing:
            problems.append(Problem(ctx.where(target), missing))
        for figure, published, recomputed in mismatches[:MAX_LISTED]:
            problems.append(Problem(ctx.where(target), f"{figure}: published {published}, recomputed {recomputed}"))
        if len(mismatches) > MAX_LISTED:
            problems.append(Problem(ctx.where(target), f"and {len(mismatches) - MAX_LISTED} more mismatches"))
    return problems, compared


def site_docs(ctx: Context, analyses: dict[str, Analysis] | None = None) -> dict[str, bytes]:
    """The whole docs folder (``site/...``) and ``mkdocs.yml``, as the site builder writes them for the
    decisions found, in the site's order: rendered once per verification (the figures and sources
    checks share it), compared file by file and rebuilt. Empty when the folder holds no site decision."""
    if ctx.docs is None:
        sites = site_decisions(ctx)
        if analyses is None:
            analyses = {unit: analyze(ctx.evidence[unit]) for unit in sites}
        pairs = [(ctx.evidence[unit], analyses[unit]) for unit in sites]
        ctx.docs = docs_files(order_decisions(pairs)) if pairs else {}  # type: ignore[arg-type]
    return ctx.docs


def _rebuild_problems(ctx: Context, docs: dict[str, bytes], dates: list[str], flagged: set[str]) -> list[Problem]:
    """Build the regenerated docs with MkDocs, as ``build`` does, and compare every HTML page and the
    search index byte for byte: what the theme adds outside the article (head, inline scripts, the
    404 page) is then checked too. Pages already reported are not reported twice."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="evidence-kit-rebuild-") as tmp:
        root = Path(tmp)
        for rel, data in docs.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        run_mkdocs(root / "mkdocs.yml", source_date_epoch(dates))
        public = root / "public"
        for path in sorted(public.rglob("*")):
            rel = path.relative_to(public).as_posix()
            if not (rel.endswith(".html") or rel == SEARCH_INDEX) or rel not in ctx.files:
                continue  # a missing page is reported by the comparison above
            if ctx.where(rel) in flagged or path.read_bytes() == (ctx.root / rel).read_bytes():
                continue
            rebuilt = path.read_bytes().split(b"\n")
            published = (ctx.root / rel).read_bytes().split(b"\n")
            line = next((i + 1 for i, (a, b) in enumerate(zip(rebuilt, published)) if a != b), min(len(rebuilt), len(published)) + 1)
            problems.append(Problem(ctx.where(rel, line), "differs from the page MkDocs builds from the regenerated "
                                                          "docs (markup, scripts or text outside what is compared above)"))
    return problems


def _predicate_problems(ctx: Context, analyses: dict[str, Analysis]) -> list[Problem]:
    """The signed predicate must name exactly the decisions and trials found, and our statistics."""
    predicate: dict[str, Any] = ctx.predicate or {}
    where = ctx.where(ENVELOPE_NAME)
    found_trials = sorted({t.trial_id for a in analyses.values() for t in a.trials})
    found_decisions = sorted({a.decision.id for a in analyses.values() if a.decision.id})
    problems = []
    for name, found in (("trials", found_trials), ("decisions", found_decisions)):
        if sorted(predicate.get(name, [])) != found:
            problems.append(Problem(where, f"signed predicate names {name} {predicate.get(name)}, the folder holds {found}"))
    if predicate.get("statistics") != DEFINITIONS["version"]:
        problems.append(
            Problem(where, f"signed with statistics {predicate.get('statistics')!r}; this verifier recomputes with {DEFINITIONS['version']!r}")
        )
    return problems


def check_figures(ctx: Context) -> CheckResult:
    """Recompute every figure from the journals; compare with the published analysis, chart data and pages."""
    name = "figures"
    if not ctx.evidence:
        return CheckResult(name, "fail", "nothing recomputed", [Problem(ctx.label, "no evidence loaded (see the contract check)")])
    analyses = {unit: analyze(evidence) for unit, evidence in sorted(ctx.evidence.items())}
    problems = _predicate_problems(ctx, analyses) if ctx.predicate is not None else []
    compared = 0
    seen: set[str] = set()
    chrome = _Chrome()
    sites = site_decisions(ctx)
    docs = site_docs(ctx, analyses) if sites else {}
    for unit, base in sorted(sites.items()):
        prefix = f"site/{decision_folder(analyses[unit])}/"
        found, count = _compare_files(
            ctx, {k[len(prefix):]: v for k, v in docs.items() if k.startswith(prefix)}, base, seen, chrome)
        problems += found
        compared += count
    if is_built_site(ctx):
        # Every page of a site is regenerated or reported: a page nothing regenerates is unchecked text.
        if sites:
            site_level = {k[len("site/"):]: v for k, v in docs.items()
                          if k.startswith("site/") and not k.startswith("site/decisions/")}
            found, count = _compare_files(ctx, site_level, seen=seen, chrome=chrome)
            problems += found
            compared += count
            problems += chrome.problems(ctx)
        problems += _not_generated(ctx, seen, sites)
        problems += _search_problems(ctx)
        problems += _theme_problems(ctx)
        if sites:
            dates = [ctx.evidence[unit].decision.date for unit in sites]  # type: ignore[union-attr]
            problems += _rebuild_problems(ctx, docs, dates, {p.where for p in problems})
    trials = sum(len(e.trials) if not isinstance(e, TrialEvidence) else 1 for e in ctx.evidence.values())
    if problems:
        detail = f"{len(problems)} published figure(s) or file(s) differ from the recomputation"
        signed_version = ((ctx.predicate or {}).get("tool") or {}).get("version")
        if sites and signed_version and signed_version != __version__:
            # Pages are regenerated with this verifier's templates: wording can differ across versions.
            detail += f" (site signed by evidence-kit {signed_version}, this is {__version__}: verify with that version)"
        return CheckResult(name, "fail", detail, problems)
    if not sites:
        return CheckResult(name, "pass", f"recomputed {trials} trial(s); no published pages or analysis here to compare")
    return CheckResult(name, "pass", f"recomputed {trials} trial(s); {compared} published page(s) and data file(s) match")
