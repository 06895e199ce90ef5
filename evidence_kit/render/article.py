"""A generated page as MkDocs renders its Markdown: the article's HTML, and the page's title.

The Markdown extensions are read from the generated ``mkdocs.yml`` (plus those
MkDocs always adds), so this is the configuration MkDocs used, not a copy of it.
``verify`` turns a regenerated page into the text a reader should see with this,
and looks for that text in the published HTML, whichever MkDocs and Material
versions wrote the rest of the page.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

import markdown
import yaml

from ..memo import Memo

__all__ = ["BUILTIN_EXTENSIONS", "markdown_extensions", "article_html", "page_title"]

# MkDocs adds these to every configuration (its `markdown_extensions` default builtins).
BUILTIN_EXTENSIONS = ("toc", "tables", "fenced_code")
FRONT_MATTER = re.compile(r"\A---\n(.*?\n)---\n", re.S)


def markdown_extensions(config: bytes) -> tuple[list[str], dict[str, Any]]:
    """``(names, configs)`` of the Markdown extensions a generated ``mkdocs.yml`` enables, builtins first."""
    names = list(BUILTIN_EXTENSIONS)
    configs: dict[str, Any] = {}
    for entry in yaml.safe_load(config).get("markdown_extensions") or []:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        if name not in names:
            names.append(name)
        if options:
            configs[name] = options
    return names, configs


@lru_cache(maxsize=4)
def _renderer(config: bytes) -> markdown.Markdown:
    """One Markdown instance per configuration, reset between pages (building one costs more than a page)."""
    names, configs = markdown_extensions(config)
    return markdown.Markdown(extensions=names, extension_configs=configs)


def article_html(page: bytes, config: bytes) -> str:
    """The HTML MkDocs puts in a page's article for a generated Markdown ``page`` (front matter removed)."""
    text = FRONT_MATTER.sub("", page.decode("utf-8"), count=1)
    # One rendering per page text and configuration in this process (Markdown is a pure function of both).
    key = f"{len(config)}:{config.decode('utf-8', 'surrogateescape')}{text}"
    return _RENDERED.get(key, lambda: _renderer(config).reset().convert(text))


_RENDERED: Memo[str] = Memo(64 * 1024 * 1024)  # characters of configurations, pages and articles kept


def page_title(page: bytes) -> str | None:
    """The title a generated page's front matter gives it, as a browser shows it (entities resolved)."""
    match = FRONT_MATTER.match(page.decode("utf-8"))
    meta = yaml.safe_load(match.group(1)) if match else None
    title = meta.get("title") if isinstance(meta, dict) else None
    return html.unescape(title) if isinstance(title, str) else None
