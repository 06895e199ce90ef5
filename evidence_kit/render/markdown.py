"""The Jinja2 environment that writes Markdown, escaping every value by default.

Templates print evidence and prose with ``{{ value }}``; the environment's
``finalize`` escapes each such value for Markdown, unless it is :class:`Markup`,
which only the helpers here produce (tables, links, chart blocks) after escaping
their own parts. A template therefore cannot forget to escape.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence
from html import escape as html_escape
from pathlib import Path
from typing import Any

import jinja2

from .. import present
from .escape import Markup, html_text, md_cell, md_prose, md_text, yaml_string

__all__ = ["TEMPLATES", "environment", "table", "link", "prose", "front_matter", "chart_block", "render"]

# The repository's templates/ is the one source; the package reaches it through the
# `evidence_kit/render/templates` symlink, which wheels resolve into a real copy.
TEMPLATES = Path(__file__).resolve().parent / "templates"


def _finalize(value: Any) -> Any:
    if isinstance(value, Markup):
        return value
    if value is None:
        return present.dash
    return md_text(value)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> Markup:
    """A pipe table; every header and cell escaped."""
    lines = ["| " + " | ".join(md_cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(c if isinstance(c, Markup) else md_cell(present.dash if c is None else c) for c in row) + " |")
    return Markup("\n".join(lines))


def link(text: Any, href: str) -> Markup:
    """A Markdown link whose text is escaped; ``href`` is always ours (a relative path)."""
    if "://" in href or href.startswith("//"):
        raise ValueError(f"pages link only to files of the site, not {href!r}")
    # Percent-encoded, so no character of a file's name (a backtick, a pipe, a newline) is read as Markdown;
    # MkDocs finds the file by the decoded path. The site's own hrefs are letters, digits and ``/._-``: unchanged.
    return Markup(f"[{md_text(text)}]({urllib.parse.quote(href, safe='/#')})")


def prose(value: Any) -> Markup:
    """Operator prose, paragraphs kept, rendered as text."""
    return Markup(md_prose(value))


def front_matter(title: str, *, tags: Sequence[str] = (), description: str | None = None) -> Markup:
    """YAML front matter with an HTML-safe title (MkDocs prints titles into HTML unescaped) and, for a
    decision page, the tags and description of its ``decision.toml`` (typed there: a tag is words of
    letters, digits, ``.``, ``_`` and ``-``), each quoted by PyYAML and HTML-escaped like the title."""
    lines = [f"title: {yaml_string(html_text(title))}"]
    if description is not None:
        lines.append(f"description: {yaml_string(html_text(description))}")
    if tags:
        lines += ["tags:", *(f"  - {yaml_string(html_text(tag))}" for tag in tags)]
    return Markup("---\n" + "\n".join(lines) + "\n---\n")


def chart_block(chart: Any, data_table: Markup, src: str) -> Markup:
    """A chart: static SVG with alt text, the interactive version, and the data table beside it."""
    spec = html_escape(chart.spec_json(), quote=True)
    alt = md_text(chart.alt)
    return Markup(
        f"![{alt}]({src}){{ .ek-chart }}\n\n"
        f'<div class="ek-vega" data-vl-spec="{spec}" role="img" aria-label="{html_escape(chart.alt, quote=True)}"></div>\n\n'
        f"{data_table}"
    )


def environment() -> jinja2.Environment:
    """The Markdown environment; its globals are the Markdown helpers here and every name of
    :mod:`evidence_kit.present` (formats, sentences, table rows)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=False,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update({name: getattr(present, name) for name in present.__all__})
    env.globals.update(table=table, link=link, prose=prose, front_matter=front_matter, chart_block=chart_block)
    return env


def render(env: jinja2.Environment, name: str, **context: Any) -> bytes:
    """Render one template to UTF-8 Markdown ending in exactly one newline."""
    text = env.get_template(name).render(**context)
    return (text.rstrip("\n") + "\n").encode()
