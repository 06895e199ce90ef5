"""The MkDocs plugin ``evidence-kit``: decision pages inside an existing MkDocs site.

In the host's ``mkdocs.yml``::

    plugins:
      - search
      - evidence-kit:
          decisions: [evidence/2026-11-01-cache-layout]   # decision folders, relative to mkdocs.yml
          prefix: decisions                                # the folder of the site they go in
          nav_title: Decisions                             # the nav section that lists them
          signing_key: keys/signing.key                    # optional: sign the prefix folder

The decisions are loaded and checked by the project's reader (a bad one fails the build with one
line naming the file), rendered by :mod:`evidence_kit.render.embedded` (the code ``build`` and
``verify`` use), added to the host's files under ``prefix`` and to its navigation, and drawn by the
host's theme. Once MkDocs has built the site the prefix folder gets its ``manifest.json`` (signed
with ``signing_key``) and is scanned for private values; ``verify SITE_DIR/PREFIX`` checks it.
No arithmetic here: every figure comes from ``analyze``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

from .attest.keys import load_private_key, private_key_spellings
from .attest.manifest import write_manifest
from .attest.sign import sign_tree
from .attest.statement import PUBLICATION_FIELD, PUBLISHED_BY_PLUGIN
from .errors import EvidenceError
from .model import RECEIPT_NAME
from .publish.safety import scan_site
from .publish.site import load_decisions
from .redact import KnownValue, known_values_from_raw, load_known_values
from .render.article import markdown_extensions
from .render.charts import vendored_script
from .render.embedded import METHODOLOGY, embedded_config, embedded_files
from .render.evidence_copy import check_bundle_manifests, evidence_files
from .rendered_cache import Rendered, cache_key, load_rendered, store_rendered
from .zensical_guard import mark_active

__all__ = ["EvidenceKitPlugin", "EvidenceKitConfig"]


class EvidenceKitConfig(Config):  # type: ignore[no-untyped-call]
    """The plugin's options in ``mkdocs.yml`` (paths relative to the ``mkdocs.yml`` folder)."""

    decisions = c.ListOfItems(c.Type(str))
    prefix = c.Type(str, default="decisions")
    nav_title = c.Type(str, default="Decisions")
    signing_key = c.Optional(c.Type(str))
    known_values = c.ListOfItems(c.Type(str), default=[])
    policy = c.Optional(c.Type(str))
    # Rendered decisions kept between builds (keyed by their evidence's and the renderer's digests);
    # relative to mkdocs.yml; "" renders every build.
    cache_dir = c.Type(str, default=".cache/evidence-kit")


def _fail(err: EvidenceError | str) -> PluginError:
    return PluginError(f"evidence-kit: {err}")


# Host plugins that stamp build-time content (today's date, the last commit's date or author) into every
# page, the decision pages included: the page ``verify`` recomputes would then differ from the published
# one on every build. Refused at build, by their ``mkdocs.plugins`` name, with what each stamps.
STAMPING_PLUGINS = {
    "git-revision-date-localized": "the date of the last commit (or of the build) into every page",
    "git-revision-date": "the date of the last commit into every page",
    "git-authors": "the authors of the last commits into every page",
    "git-committers": "the committers of the last commits into every page",
}


def _refuse_stamping(config: MkDocsConfig) -> None:
    """One line naming the first host plugin of :data:`STAMPING_PLUGINS` the site loads."""
    for name in config.plugins:
        bare = name.split("/", 1)[-1]
        if bare in STAMPING_PLUGINS:
            raise _fail(
                f"the host's plugin {name!r} stamps {STAMPING_PLUGINS[bare]}, the decision pages included, so "
                "`evidence-kit verify` would fail every one of them: remove it from plugins, or publish the "
                "decisions with `evidence-kit build` in a site of their own"
            )


def _prefix(value: str) -> str:
    """The prefix as a clean relative folder (``decisions``, ``ops/decisions``), or a :class:`PluginError`."""
    path = PurePosixPath(value.strip("/"))
    hidden = any(part in ("", ".", "..") or part.startswith(".") for part in path.parts)
    if not value.strip("/") or not path.parts or path.as_posix() == "." or hidden or "\\" in value:
        raise _fail(f"prefix {value!r} must be a folder of the site such as 'decisions' (no '..', no hidden part)")
    return path.as_posix()


def _published_roots(config: MkDocsConfig) -> list[Path]:
    """Every folder (resolved) whose files MkDocs may copy into the site: ``docs_dir``, whatever a symlink
    inside it points to (MkDocs walks it following links), every theme folder (``custom_dir`` included)
    and ``site_dir``."""
    roots = [Path(config.docs_dir).resolve(), Path(config.site_dir).resolve()]
    roots += [Path(d).resolve() for d in getattr(config.theme, "dirs", [])]
    seen: set[Path] = set()
    pending = [Path(config.docs_dir)]
    while pending:
        folder = pending.pop()
        real = folder.resolve()
        if real in seen or not real.is_dir():
            continue
        seen.add(real)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.is_symlink():
                roots.append(path.resolve())
            if path.is_dir():
                pending.append(path)
    return roots


def _refuse_published(config: MkDocsConfig, paths: list[tuple[str, Path]]) -> None:
    """A signing key, a known-values map or a policy file MkDocs would copy into the site is refused."""
    roots = _published_roots(config)
    for what, path in paths:
        real = path.resolve()
        for root in roots:
            if real == root or real.is_relative_to(root):
                raise _fail(
                    f"{path}: the {what} is inside {root}, a folder MkDocs publishes (docs, a folder "
                    "linked into docs, a theme folder or the site folder); keep it outside them"
                )


class EvidenceKitPlugin(BasePlugin[EvidenceKitConfig]):  # type: ignore[no-untyped-call]
    """Adds decision pages, charts, chart data and evidence copies to a host MkDocs site under a prefix."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.files: dict[str, bytes] = {}
        self.values: list[KnownValue] = []
        self.prefix = ""
        self.ours: set[str] = set()
        self.secrets: list[tuple[str, Path]] = []
        self.extensions: tuple[list[str], dict[str, Any]] = ([], {})
        self.vendored_sha256: str | None = None
        self.saved: tuple[list[Any], dict[str, Any]] | None = None  # the host's extensions, while ours render a page
        self.config_seen: MkDocsConfig | None = None

    def _path(self, config: MkDocsConfig, value: str) -> Path:
        return Path(config.config_file_path or ".").resolve().parent / value

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """Load and check every decision, render its files, and add the charts' script and styles."""
        self.prefix = _prefix(self.config.prefix)
        self.config_seen, self.saved = config, None
        mark_active()  # the zensical_guard Markdown extension, if the host lists it, lets this build pass
        _refuse_stamping(config)
        if not self.config.decisions:
            raise _fail("no decision folder given (plugins: - evidence-kit: decisions: [PATH, ...])")
        key = self.config.signing_key
        self.secrets = [("signing key", self._path(config, key))] if key is not None else []
        self.secrets += [("known-values map", self._path(config, m)) for m in self.config.known_values]
        if self.config.policy:
            self.secrets.append(("policy file", self._path(config, self.config.policy)))
        _refuse_published(config, self.secrets)
        try:
            if key is not None:
                load_private_key(self._path(config, key))  # a bad key is refused before anything is built
            rendered = self._rendered(config)
            maps = [self._path(config, m) for m in self.config.known_values]
            self.values = [v for raw in rendered.raw_trials for v in known_values_from_raw(Path(raw))]
            self.values += [v for path in maps for v in load_known_values(path)]
        except EvidenceError as err:
            raise _fail(err) from None
        self.files, self.ids, self.vendored_sha256 = rendered.files, rendered.ids, rendered.vendored_sha256
        self.ours = {f"{self.prefix}/{rel}" for rel in self.files}
        self.extensions = markdown_extensions(embedded_config())
        config.extra_css.append(f"{self.prefix}/assets/extra.css")
        # charts.js (2 KB) on every page; it loads the Vega bundle (about 900 KB) beside it only on a page
        # with a chart, after an instant navigation too.
        config.extra_javascript.append(f"{self.prefix}/assets/charts.js")
        return config

    def _rendered(self, config: MkDocsConfig) -> Rendered:
        """The decisions rendered: read back from the cache when neither their evidence nor the renderer
        changed since the last build (:mod:`evidence_kit.rendered_cache`), else loaded, checked, rendered
        and kept."""
        folders = [self._path(config, d) for d in self.config.decisions]
        cache = self._path(config, self.config.cache_dir) if self.config.cache_dir else None
        # A folder that is missing is the reader's to name; only folders that exist have a key.
        key = cache_key(folders) if cache is not None and all(f.is_dir() for f in folders) else None
        if cache is not None and key is not None and (hit := load_rendered(cache, key)) is not None:
            return hit
        rendered = _render(folders)
        if cache is not None and key is not None:
            store_rendered(cache, key, rendered)
        return rendered

    def on_serve(self, server: Any, *, config: MkDocsConfig, builder: Any) -> Any:
        """Under ``mkdocs serve``, a change in a decision folder (its evidence, its ``decision.toml``)
        rebuilds the site, as a change in ``docs_dir`` does."""
        for folder in self.config.decisions:
            server.watch(str(self._path(config, folder)))
        for path in (self.config.signing_key, self.config.policy, *self.config.known_values):
            if path:
                server.watch(str(self._path(config, path)))
        return server

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        """Add the decisions' files under the prefix, after scanning them; the prefix must be ours alone."""
        under = self.prefix + "/"
        # Where a host file is published counts, not where it is: docs/decisions.md is decisions/index.html.
        taken = sorted(f.src_uri for f in files if f.src_uri.startswith(under) or f.dest_uri.startswith(under))
        if taken:
            raise _fail(
                f"{Path(config.docs_dir) / taken[0]}: the host's docs folder has a file published under "
                f"{self.prefix}/, which the plugin owns; choose another prefix or move the file"
            )
        # Not in MkDocs' automatic nav: :meth:`on_nav` places the decisions.
        ours = [
            File.generated(config, f"{self.prefix}/{rel}", content=data, inclusion=InclusionLevel.NOT_IN_NAV)
            for rel, data in sorted(self.files.items())
        ]
        published: dict[str, str] = {}
        for file in ours:
            other = published.setdefault(file.dest_uri, file.src_uri)
            if other != file.src_uri:
                raise _fail(
                    f"{other} and {file.src_uri} would both be published as {file.dest_uri}; "
                    "a decision id may not be the name of another page of the prefix folder"
                )
        self._scan_rendered(config)
        for file in ours:
            files.append(file)
        return files

    def _scan_rendered(self, config: MkDocsConfig) -> None:
        """The leak scan of ``build``, on the rendered files (Markdown, charts, chart data, evidence copies)
        before MkDocs writes anything: a finding fails the build and nothing is written."""
        staged = Path(tempfile.mkdtemp(prefix=".evidence-kit-plugin-"))
        try:
            root = staged / PurePosixPath(self.prefix).name
            for rel, data in self.files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_bytes(data)
            policy = self._path(config, self.config.policy) if self.config.policy else None
            # Findings are named where the file would have gone: SITE_DIR/PREFIX/...
            shown_as = Path(config.site_dir) / PurePosixPath(self.prefix).parent
            scan_site([root], self.values, shown_as=shown_as, policy_file=policy, vendored_sha256=self.vendored_sha256)
        except EvidenceError as err:
            raise _fail(err) from None
        finally:
            shutil.rmtree(staged, ignore_errors=True)

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        """The decisions, newest first, then the methodology page, in the nav section titled ``nav_title``."""
        items = _without(nav.items, self.ours, self.config.nav_title)
        entries = [files.get_file_from_path(f"{self.prefix}/{did}/index.md") for did in self.ids]
        entries.append(files.get_file_from_path(f"{self.prefix}/{METHODOLOGY}"))
        pages = [f.page for f in entries if f is not None and isinstance(f.page, Page)]
        section = _find_section(items, self.config.nav_title)
        if section is None:
            section = Section(self.config.nav_title, [])
            items.append(section)
        section.children.extend(pages)
        _link(items, None)
        ordered = _pages(items)
        for before, page, after in zip([None, *ordered[:-1]], ordered, [*ordered[1:], None]):
            page.previous_page, page.next_page = before, after
        return Navigation(items, ordered)

    @event_priority(-100)  # last: the host's plugins have had the page's Markdown
    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str | None:
        """A decision page is rendered with the Markdown extensions of ``build`` (not the host's), the text
        ``verify`` expects; MkDocs' own link rewriting still applies. MkDocs renders the page right after
        this hook, with the extensions swapped in here (and swapped back first thing in
        :meth:`on_page_content`): each page is rendered once. A decision page has no source in the host's
        repository: no "edit this page" link."""
        if page.file.src_uri in self.ours:
            page.edit_url = None
            self._restore(config)
            self.saved = config["markdown_extensions"], config["mdx_configs"]
            config["markdown_extensions"], config["mdx_configs"] = self.extensions
        return markdown

    @event_priority(100)  # first: no host plugin sees the swapped extensions
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str | None:
        """The host's Markdown extensions back after a decision page was rendered with ``build``'s."""
        self._restore(config)
        return html

    @event_priority(-100)  # after the host's tags plugin has set the page's tags
    def on_page_context(self, context: Any, *, page: Page, config: MkDocsConfig, nav: Navigation) -> Any:
        """A tags plugin lists a decision page under the tags of its ``decision.toml`` (they are in its front
        matter) but draws no tag bar into its article: the article is ``build``'s alone, and ``verify``
        refuses markup ``build`` does not write."""
        if page.file.src_uri in self.ours:
            for name, plugin in config.plugins.items():
                if name.split("/")[-1] == "tags":
                    context[getattr(plugin.config, "tags_name_variable", "tags")] = []
        return context

    def on_build_error(self, *, error: Exception) -> None:
        """A page that failed to render leaves the host's extensions in place (``mkdocs serve`` builds again
        with the same configuration)."""
        if self.saved is not None and self.config_seen is not None:
            self._restore(self.config_seen)

    def _restore(self, config: MkDocsConfig) -> None:
        if self.saved is not None:
            config["markdown_extensions"], config["mdx_configs"] = self.saved
            self.saved = None

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Write the prefix folder's manifest, signed with ``signing_key``.

        The HTML is not scanned again: what it shows of the decisions is what :meth:`on_files` scanned,
        and the rest (the host's header with its ``repo_url``, say) is the host's to publish."""
        out = Path(config.site_dir) / self.prefix
        self._no_secret_copied(Path(config.site_dir))
        try:
            write_manifest(out)
            if self.config.signing_key is not None:
                sign_tree(out, self._path(config, self.config.signing_key), predicate={PUBLICATION_FIELD: PUBLISHED_BY_PLUGIN})
        except EvidenceError as err:
            raise _fail(err) from None

    def _no_secret_copied(self, site: Path) -> None:
        """Belt and braces after :func:`_refuse_published`: no file of the built site has the bytes of the
        signing key, a known-values map or the policy file, nor holds the signing key's secret pasted into a
        page (its PEM body, or its seed in hex or base64, however wrapped over lines, marked up or, for hex, separated).
        Each such file is deleted and the build fails, unsigned."""
        secrets = {}
        for what, path in self.secrets:
            try:
                secrets[path.read_bytes()] = (what, path)
            except OSError as err:
                raise _fail(f"{path}: the {what} cannot be read ({err.strerror})") from None
        pasted: list[bytes] = []
        if self.config.signing_key is not None:
            key_path = next(path for what, path in self.secrets if what == "signing key")
            pasted = private_key_spellings(load_private_key(key_path))
            seed_hex = next(spelling for spelling in pasted if re.fullmatch(rb"[0-9a-f]{64}", spelling))
        copies = []
        for file in sorted(site.rglob("*")):
            if not file.is_file():
                continue
            data = file.read_bytes()
            found = secrets.get(data)
            if (
                found is None
                and pasted
                and (
                    any(spelling in data for spelling in pasted)
                    or any(spelling in _unwrapped(data) for spelling in pasted)
                    or seed_hex in _hex_digits(data)
                )
            ):
                found = ("signing key", key_path)
            if found is not None:
                copies.append((file, found))
        for file, _ in copies:
            file.unlink()
        if copies:
            file, (what, path) = copies[0]
            raise _fail(
                f"{file}: a copy of the {what} {path} was published in the site (deleted; "
                f"{len(copies)} cop{'y' if len(copies) == 1 else 'ies'} in all); nothing was signed"
            )


def _render(folders: list[Path]) -> Rendered:
    """Load, check and render the decision folders (what ``build`` does before MkDocs runs)."""
    loaded = load_decisions(folders)
    for evidence, _ in loaded:
        check_bundle_manifests(evidence, evidence_files(evidence))
    raw = [str(Path(t.source)) for ev, _ in loaded for t in ev.trials if not (Path(t.source) / RECEIPT_NAME).is_file()]
    files = embedded_files(loaded)
    bundle = hashlib.sha256(vendored_script()).hexdigest()  # drawn once per process: the files hold it
    return Rendered(files=files, ids=[ev.decision.id for ev, _ in loaded], raw_trials=raw, vendored_sha256=bundle)


def _unwrapped(data: bytes) -> bytes:
    """A file's text without its markup and blanks: a base64 spelling an editor wrapped over lines reads whole."""
    return re.sub(rb"\s+", b"", re.sub(rb"<[^>]*>", b"", data))


def _hex_digits(data: bytes) -> bytes:
    """A file's hex digits alone, lowercase, its markup dropped: the seed as ``openssl pkey -text`` prints it
    (bytes joined by colons, fifteen to an indented line), highlighted into spans, reads as its plain hex."""
    return re.sub(rb"[^0-9a-f]+", b"", re.sub(rb"<[^>]*>", b"", data).lower())


def _without(items: list[Any], ours: set[str], keep: str) -> list[Any]:
    """The nav without the plugin's pages (MkDocs' automatic nav lists every page); a section left empty by
    that is dropped, unless it is the section ``keep`` (an empty one, ``- Decisions: []``, is a placeholder)."""
    out = []
    for item in items:
        if isinstance(item, Page) and item.file.src_uri in ours:
            continue
        if isinstance(item, Section) and item.children:
            item.children = _without(item.children, ours, keep)
            if not item.children and item.title != keep:
                continue
        out.append(item)
    return out


def _find_section(items: list[Any], title: str) -> Section | None:
    for item in items:
        if isinstance(item, Section):
            if item.title == title:
                return item
            found = _find_section(item.children, title)
            if found is not None:
                return found
    return None


def _link(items: list[Any], parent: Section | None) -> None:
    for item in items:
        item.parent = parent
        if isinstance(item, Section):
            _link(item.children, item)


def _pages(items: list[Any]) -> list[Page]:
    out: list[Page] = []
    for item in items:
        if isinstance(item, Page):
            out.append(item)
        elif isinstance(item, Section):
            out += _pages(item.children)
    return out
