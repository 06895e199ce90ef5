"""A built site folder's sources: ``SITE/mkdocs.yml`` and ``SITE/site/``, regenerated and compared byte for byte.

``build --out SITE`` writes exactly three entries: ``mkdocs.yml``, ``site/`` (the
Markdown, charts, chart data and evidence copies MkDocs builds from) and
``public/`` (the HTML, covered by its manifest and signature). The first two are
what a repository commits as its site, and nothing signs them; but every byte of
them is rendered from the evidence, so they are rendered again from the evidence
in ``public/`` and compared, extra and missing files included. Anything else in
``SITE`` is not written by ``build`` and fails: when ``SITE`` is given, every
file under it is covered.
"""

from __future__ import annotations

import stat
from pathlib import Path

from ..attest.manifest import MANIFEST_NAME
from ..attest.tree import walk_tree
from ..render.docs_folder import OWNED
from .recompute import site_decisions, site_docs
from .verification import CheckResult, Context, Problem

__all__ = ["check_sources", "first_difference"]

DOCS_DIR = "site"
CONFIG = "mkdocs.yml"
PUBLIC = "public"


def first_difference(published: bytes, regenerated: bytes) -> int:
    """The first line (1-based) where two files differ."""
    a, b = published.split(b"\n"), regenerated.split(b"\n")
    return next((i + 1 for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)) + 1)


def _on_disk(site: Path, problems: list[Problem]) -> dict[str, Path]:
    """``mkdocs.yml`` and every regular file under ``site/``, keyed as the builder names them; others reported."""
    found: dict[str, Path] = {}
    for name in (CONFIG, DOCS_DIR):
        try:
            mode = (site / name).lstat().st_mode
        except FileNotFoundError:
            continue  # reported as missing against the regenerated files
        if stat.S_ISLNK(mode):
            problems.append(Problem(str(site / name), "symbolic link (not followed): build writes a regular file or folder"))
        elif name == CONFIG and stat.S_ISREG(mode):
            found[CONFIG] = site / CONFIG
        elif name == DOCS_DIR and stat.S_ISDIR(mode):
            for rel, problem in walk_tree(site / DOCS_DIR):
                if problem:
                    problems.append(Problem(str(site / DOCS_DIR / rel), f"{problem}: build never writes one"))
                else:
                    found[f"{DOCS_DIR}/{rel}"] = site / DOCS_DIR / rel
        else:
            problems.append(Problem(str(site / name), "not a regular file or folder as build writes it"))
    return found


def check_sources(ctx: Context) -> CheckResult:
    """Given a site folder, its ``mkdocs.yml`` and ``site/`` are byte for byte what ``build`` writes from
    the published evidence, and ``SITE`` holds nothing ``build`` does not write."""
    name = "sources"
    site = ctx.site
    if site is None:
        return CheckResult(name, "skip", "not given a site folder: give SITE, not SITE/public, to check mkdocs.yml and site/")
    problems: list[Problem] = []
    for entry in sorted(p.name for p in site.iterdir()):
        if entry not in OWNED:
            problems.append(Problem(str(site / entry), "not written by evidence-kit build (a site folder holds only "
                                                       "mkdocs.yml, site/ and public/)"))
    if "" not in ctx.manifests:
        problems.append(Problem(str(site / PUBLIC / MANIFEST_NAME), "missing: build writes it"))
    if not site_decisions(ctx):
        problems.append(Problem(str(site / PUBLIC), "not compared: no decision evidence under decisions/<id>/evidence "
                                                    "to regenerate mkdocs.yml and site/ from (see the contract check)"))
        return CheckResult(name, "fail", "sources not regenerated", problems)
    expected = site_docs(ctx)
    present = _on_disk(site, problems)
    for rel in sorted(set(expected) | set(present)):
        where = str(site / rel)
        if rel not in present:
            problems.append(Problem(where, "missing: build writes it from the evidence"))
        elif rel not in expected:
            problems.append(Problem(where, "present, but build does not write it (added after the build?)"))
        else:
            data = present[rel].read_bytes()
            if data != expected[rel]:
                line = first_difference(data, expected[rel])
                problems.append(Problem(f"{where}:{line}", "differs from what build writes from the published evidence"))
    if problems:
        return CheckResult(name, "fail", f"{len(problems)} file(s) of the site folder are not what build writes", problems)
    return CheckResult(name, "pass", f"{len(present)} file(s): mkdocs.yml and site/ are byte for byte what build "
                                     "writes from the published evidence; nothing else in the site folder")
