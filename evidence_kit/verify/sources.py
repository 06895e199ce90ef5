"""Byte for byte what ``build`` writes: the site rebuilt from its own evidence, with the toolchain that built it.

``build --out SITE`` writes exactly three entries: ``mkdocs.yml``, ``site/`` (the
Markdown, charts, chart data and evidence copies MkDocs builds from; nothing
signs them) and ``public/`` (the HTML, covered by its manifest and signature).
Every byte of them is rendered from the evidence, so the docs folder is rendered
again from the evidence in ``public/`` and built with MkDocs as ``build`` does:
``public/`` must be what that rebuild writes (the markup around the text the
figures check compares, Material's theme files, the search index, the chart
SVGs, the vendored Vega scripts), and, given ``SITE``, ``mkdocs.yml`` and
``site/`` what ``build`` writes, with nothing else in ``SITE``.

Those bytes also depend on the versions of MkDocs, Material, vl-convert and the
rest (:mod:`evidence_kit.render.toolchain`), which a signed site records. With
other versions installed ``public/`` is rebuilt with them all the same: a file
rebuilt byte for byte is proven whatever built it; one that differs may differ by a
version or by an edit, so it is named as not regenerated (what still holds: the
signature, and the figures, checked against the pages' text whatever the versions,
every chart against what the evidence derives), never failed. ``SITE``'s own files
are compared whatever is recorded.
"""

from __future__ import annotations

import hashlib
import stat
import tempfile
from pathlib import Path

from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..attest.statement import StatementError, recorded_sources, recorded_toolchain
from ..attest.tree import walk_tree
from ..errors import CheckFailed
from ..render.layout import CONFIG_NAME, DOCS_DIR, OWNED, PUBLIC_DIR, is_evidence_copy
from ..render.mkdocs_build import run_mkdocs, source_date_epoch
from ..render.toolchain import describe_differences, installed_toolchain, toolchain_bound, toolchain_differences
from .recompute import SIGNING_FILES, THEME_DIRS, embedded_decisions, is_built_site, site_decisions
from .toolchain_record import MARKDOWN_PACKAGES, not_proven_with_other_versions
from .verification import CheckResult, Context, Problem

__all__ = ["check_sources", "first_difference"]

DIFFERS = "differs from what build writes from the published evidence"


def first_difference(published: bytes, regenerated: bytes) -> int:
    """The first line (1-based) where two files differ."""
    a, b = published.split(b"\n"), regenerated.split(b"\n")
    return next((i + 1 for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)) + 1)


def _excerpt(published: bytes, rebuilt: bytes) -> str:
    """Where two versions of a file part: a few characters of each from the first byte that differs."""
    start = next((i for i, (x, y) in enumerate(zip(published, rebuilt)) if x != y), min(len(published), len(rebuilt)))
    start = max(0, start - 10)

    def show(data: bytes) -> str:
        text = data[start : start + 60].decode("utf-8", "replace")
        return repr(text) if text else "(end of file)"

    return f"published {show(published)}, rebuilt {show(rebuilt)}"


def _on_disk(site: Path, problems: list[Problem]) -> dict[str, Path]:
    """``mkdocs.yml`` and every regular file under ``site/``, keyed as the builder names them; others reported."""
    found: dict[str, Path] = {}
    for name in (CONFIG_NAME, DOCS_DIR):
        try:
            mode = (site / name).lstat().st_mode
        except FileNotFoundError:
            continue  # reported as missing against the regenerated files
        if stat.S_ISLNK(mode):
            problems.append(Problem(str(site / name), "symbolic link (not followed): build writes a regular file or folder"))
        elif name == CONFIG_NAME and stat.S_ISREG(mode):
            found[CONFIG_NAME] = site / CONFIG_NAME
        elif name == DOCS_DIR and stat.S_ISDIR(mode):
            for rel, problem in walk_tree(site / DOCS_DIR):
                if problem:
                    problems.append(Problem(str(site / DOCS_DIR / rel), f"{problem}: build never writes one"))
                else:
                    found[f"{DOCS_DIR}/{rel}"] = site / DOCS_DIR / rel
        else:
            problems.append(Problem(str(site / name), "not a regular file or folder as build writes it"))
    return found


def _site_folder_problems(ctx: Context, site: Path, docs: dict[str, bytes], signed: dict[str, str] | None) -> tuple[list[Problem], int]:
    """``SITE`` holds only what build writes, and ``mkdocs.yml`` and ``site/`` are that: each file byte for byte
    what build writes from the evidence, and, where the signed statement records the sources (``build --sign``),
    the file it signed. Whatever toolchain is recorded: the signed record is the key holder's to rewrite, so it
    never stands in for the comparison (a Markdown page a code host renders shows figures and words)."""
    problems: list[Problem] = []
    for entry in sorted(p.name for p in site.iterdir()):
        if entry not in OWNED:
            problems.append(Problem(str(site / entry), "not written by evidence-kit build (a site folder holds only mkdocs.yml, site/ and public/)"))
    if "" not in ctx.manifests:
        problems.append(Problem(str(site / PUBLIC_DIR / MANIFEST_NAME), "missing: build writes it"))
    present = _on_disk(site, problems)
    markdown = False  # whether a Markdown page differs from what build writes
    for rel in sorted(set(docs) | set(present) | set(signed or {})):
        where = str(site / rel)
        if rel not in present:
            problems.append(Problem(where, "missing: build writes it from the evidence" + (" and signed it" if rel in (signed or {}) else "")))
            continue
        found = _source_problem(rel, present[rel].read_bytes(), docs, signed)
        if found is not None:
            problems.append(Problem(where + found[0], found[1]))
            markdown = markdown or (rel.endswith(".md") and found[1] == DIFFERS)
    if markdown:
        problems += not_proven_with_other_versions(ctx, str(site / DOCS_DIR), "Markdown", MARKDOWN_PACKAGES)
    return problems, len(present)


def _source_problem(rel: str, data: bytes, docs: dict[str, bytes], signed: dict[str, str] | None) -> tuple[str, str] | None:
    """What is wrong with one file of ``SITE``: ``(":LINE" or "", what)``, or ``None``. Every file is compared
    with what build writes, whatever toolchain is installed, and with the signed record of the sources."""
    if signed is not None and signed.get(rel) != hashlib.sha256(data).hexdigest():
        said = "is not the file the signed statement records" if rel in signed else "is not among the sources the signed statement records"
        return "", f"{said} (added or edited after the build?)"
    if rel not in docs:
        return "", "present, but build does not write it (added after the build?)"
    return None if data == docs[rel] else (f":{first_difference(data, docs[rel])}", DIFFERS)


# The last rebuild of this process, by the digest of its docs folder and epoch: a rebuild is a pure function of
# them (the comparison relies on it), and a process that verifies one site several times (a test suite) runs
# MkDocs once.
_REBUILT: dict[str, dict[str, bytes]] = {}


def _rebuild(docs: dict[str, bytes], epoch: int) -> dict[str, bytes]:
    """Every file MkDocs builds from ``docs`` as ``build`` runs it, but the evidence copies (their bytes are the
    digests' to check)."""
    digest = hashlib.sha256(str(epoch).encode())
    for key in sorted(docs):
        digest.update(key.encode() + b"\0" + hashlib.sha256(docs[key]).digest())
    if digest.hexdigest() not in _REBUILT:
        with tempfile.TemporaryDirectory(prefix="evidence-kit-rebuild-") as tmp:
            root = Path(tmp)
            for key, data in docs.items():
                (root / key).parent.mkdir(parents=True, exist_ok=True)
                (root / key).write_bytes(data)
            run_mkdocs(root / CONFIG_NAME, epoch)
            public = root / PUBLIC_DIR
            files = {path.relative_to(public).as_posix(): path for path in public.rglob("*") if path.is_file()}
            rebuilt = {rel: path.read_bytes() for rel, path in files.items() if not is_evidence_copy(rel)}
        _REBUILT.clear()
        _REBUILT[digest.hexdigest()] = rebuilt
    return _REBUILT[digest.hexdigest()]


# How a file of the rebuild and of ``public/`` disagree (:func:`_rebuild_differences`).
_ADDED, _MISSING, _CHANGED = "added", "missing", "changed"


def _rebuild_differences(ctx: Context, docs: dict[str, bytes], dates: list[str]) -> tuple[list[tuple[str, str, int | None, str]], int]:
    """Build the regenerated docs with MkDocs as ``build`` does and compare every file of ``public/`` byte for
    byte (the evidence copies are the digests'), in both directions: ``(rel, how, offset, what)`` for each file
    that differs, is missing or is added (``how``: ``_CHANGED``, ``_MISSING``, ``_ADDED``), and how many
    files were compared. Files the figures check named are left
    out (not named twice)."""
    found: list[tuple[str, str, int | None, str]] = []
    rebuilt = _rebuild(docs, source_date_epoch(dates))
    compared = 0
    for rel in sorted(set(rebuilt) | set(ctx.files)):
        if rel in ctx.reported or rel in SIGNING_FILES or is_evidence_copy(rel):
            continue
        if rel not in rebuilt:
            found.append((rel, _ADDED, None, "published, but MkDocs does not build it from the evidence"))
        elif rel not in ctx.files:
            found.append((rel, _MISSING, None, "missing: MkDocs builds it from the evidence"))
        else:
            compared += 1
            published, again = (ctx.root / rel).read_bytes(), rebuilt[rel]
            if published != again:
                what = (
                    "differs from the theme file MkDocs copies from the recorded mkdocs-material"
                    if rel.startswith(THEME_DIRS)
                    else "differs from what MkDocs builds from the evidence"
                )
                found.append((rel, _CHANGED, first_difference(published, again), f"{what}: {_excerpt(published, again)}"))
    return found, compared


def _rebuild_problems(ctx: Context, docs: dict[str, bytes], dates: list[str]) -> tuple[list[Problem], int]:
    """The rebuild with the recorded (or, with no record, the installed) toolchain: every difference fails."""
    found, compared = _rebuild_differences(ctx, docs, dates)
    return [Problem(ctx.where(rel, offset), what) for rel, _, offset, what in found], compared


def _rebuild_with_other_versions(ctx: Context, docs: dict[str, bytes], dates: list[str]) -> tuple[int, int, int]:
    """The rebuild with the installed toolchain when the site records other versions: a file rebuilt byte for
    byte is proven whatever built it (its bytes are what the evidence gives); one that differs, or that only the
    site has, may differ by a version or by an edit, so it joins ``ctx.unregenerated`` (what still holds: the
    signature, and figures). A file only the rebuild has may be a version's too: it is counted, so the site is never
    called complete. Returns (identical, not reproduced, only the rebuild has)."""
    try:
        found, compared = _rebuild_differences(ctx, docs, dates)
    except CheckFailed as err:  # the installed MkDocs cannot build what another version built
        ctx.not_rebuilt = f"{ctx.not_rebuilt}, and the installed MkDocs could not rebuild it ({err.message})"
        _not_regenerated(ctx)
        return 0, len(ctx.unregenerated), 0
    published = [rel for rel, how, _, _ in found if how != _MISSING]
    ctx.unregenerated += [f"{PUBLIC_DIR}/{rel}" for rel in published]
    differs = sum(1 for _, how, _, _ in found if how == _CHANGED)
    return compared - differs, len(published), len(found) - len(published)


def _toolchain(ctx: Context) -> tuple[str, str | None, list[Problem]]:
    """``(which toolchain the rebuild uses, why it cannot run here, problems with the record)``. A site that
    records no toolchain (unsigned, or signed by ``sign_tree`` alone) is rebuilt with the installed one: a
    difference then fails, as the bytes do. With a record, ``why`` names the versions that differ: the rebuild
    then runs with the installed ones and proves only the files it reproduces."""
    try:
        recorded = recorded_toolchain(ctx.predicate) if ctx.predicate is not None else None
    except StatementError as err:
        return "", None, [Problem(ctx.where(ENVELOPE_NAME), str(err))]
    if recorded is None:
        return "the installed toolchain (the site records none)", None, []
    differences = toolchain_differences(recorded, installed_toolchain())
    return "the toolchain the site records", (describe_differences(differences) if differences else None), []


def _site_folder(ctx: Context, site: Path | None, docs: dict[str, bytes]) -> tuple[list[Problem], int]:
    """The problems of ``SITE`` beside ``public/`` (none when only ``public/`` was given) and how many files it holds."""
    if site is None:
        return [], 0
    try:
        signed = recorded_sources(ctx.predicate) if ctx.predicate is not None else None
    except StatementError as err:
        return [Problem(ctx.where(ENVELOPE_NAME), str(err))], 0
    return _site_folder_problems(ctx, site, docs, signed)


def _not_regenerated(ctx: Context) -> None:
    """Note what the rebuild would have compared in ``public/``: still covered by the signature (the digests
    check), and each page's text and each chart by the figures check (the chart files, SVGs and the vendored
    Vega scripts, byte for byte there: they are not among these)."""
    ctx.unregenerated += [
        f"{PUBLIC_DIR}/{rel}"
        for rel in ctx.files
        if rel not in SIGNING_FILES and not is_evidence_copy(rel) and not rel.endswith((".json", ".csv")) and not toolchain_bound(rel)
    ]


def check_sources(ctx: Context) -> CheckResult:
    """A built site is byte for byte what ``build`` writes from its evidence, with the toolchain it records."""
    name = "sources"
    site = ctx.site
    sites = site_decisions(ctx)
    if site is None and embedded_decisions(ctx):
        return CheckResult(
            name,
            "skip",
            "decisions published inside a host MkDocs site (the evidence-kit plugin): "
            "the host's pages, theme and navigation are not rebuilt; each decision page's "
            "article was checked by figures",
        )
    if site is None and not is_built_site(ctx):
        return CheckResult(name, "skip", "not a built site: nothing to rebuild (the figures check covers the evidence)")
    if not sites:
        where = str(site / PUBLIC_DIR) if site else ctx.label
        return CheckResult(
            name,
            "fail",
            "nothing rebuilt",
            [Problem(where, "no decision evidence under decisions/<id>/evidence to rebuild the site from (see the contract check)")],
        )
    from .site_pages import site_docs  # a site's renderer: a decision folder never reaches here

    toolchain, ctx.not_rebuilt, problems = _toolchain(ctx)
    docs = site_docs(ctx)
    recorded_ok = not problems
    found, compared = _site_folder(ctx, site, docs)
    problems += found
    dates = [ctx.evidence[unit].decision.date for unit in sites]  # type: ignore[union-attr]
    if not recorded_ok:
        _not_regenerated(ctx)
    elif ctx.not_rebuilt is None:
        found, rebuilt = _rebuild_problems(ctx, docs, dates)
        problems += found
        compared += rebuilt
    else:
        identical, unproven, missing = _rebuild_with_other_versions(ctx, docs, dates)
        compared += identical
        if not unproven and not missing:
            toolchain = f"the installed toolchain, which is not the recorded one ({ctx.not_rebuilt})"
            ctx.not_rebuilt = None
        elif missing:
            ctx.not_rebuilt = f"{ctx.not_rebuilt}; {missing} file(s) the installed versions build are not in the site"
    return _sources_result(ctx, site, toolchain, problems, compared)


def _sources_result(ctx: Context, site: Path | None, toolchain: str, problems: list[Problem], compared: int) -> CheckResult:
    """The line of the check. A malformed toolchain record is among ``problems`` (and leaves ``ctx.not_rebuilt``
    unset): it fails."""
    name = "sources"
    unproven = (
        f"site not reproduced with the installed versions: {ctx.not_rebuilt}; {len(ctx.unregenerated)} file(s) not regenerated, each covered "
        "by the signature (the digests of public/, the signed record of the sources); figures checked against the pages' text"
    )
    if ctx.not_rebuilt and compared:
        unproven += f"; {compared} file(s) byte for byte what build writes"
    if problems:
        detail = f"{len(problems)} file(s) are not what build writes from the evidence"
        return CheckResult(name, "fail", detail + (f" ({unproven})" if ctx.not_rebuilt else ""), problems)
    if ctx.not_rebuilt:
        return CheckResult(name, "skip", unproven)
    covered = "public/, mkdocs.yml and site/ are" if site is not None else "public/ is"
    tail = "; nothing else in the site folder" if site is not None else " (give SITE to cover mkdocs.yml and site/)"
    return CheckResult(
        name, "pass", f"{compared} file(s) compared with a rebuild by {toolchain}: {covered} byte for byte what build writes from the evidence{tail}"
    )
