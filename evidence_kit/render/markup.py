"""The HTML a site's pages may hold: every element and attribute the renderer and the theme write, in one registry.

``verify`` reads a page's text as a browser parses it and compares it with the
regenerated one; but a browser also shows text the comparison never reads (an
``<input value>``, an inline SVG's ``<text>``, a ``<textarea>``) and hides text
it does (``<noembed>``, ``<template>``). So a page may hold only what is listed
here: :data:`ARTICLE` inside its ``<article>`` (what the templates and
Python-Markdown write, class names included), :data:`PAGE` around it (what
mkdocs-material writes: header, navigation, search box, footer, icons). Each
entry is ``element: attributes``; ``tests/verify/test_markup.py`` checks that a
built site holds nothing else and that each trick the registry rules out fails.

A page published inside a host MkDocs site (the plugin) is the host theme's
outside its article, which this registry cannot know: there only the article is
held to :data:`ARTICLE`, and the rest must hold none of :data:`SHOWS_UNREAD`.
"""

from __future__ import annotations

import re

from ..present.outcome import OUTCOME_BOXES

__all__ = [
    "ADMONITIONS",
    "ARTICLE",
    "ARTICLE_PLACE",
    "PAGE",
    "PAGE_ANY_ATTRIBUTE",
    "ARTICLE_CLASS",
    "OTHER_CHARSET",
    "REFRESH",
    "SHOWS_UNREAD",
    "SHOWS_UNREAD_ATTRIBUTES",
]

_HEADING = frozenset({"id"})
# Inside the <article>: what the page templates and Python-Markdown (with the extensions mkdocs.yml
# enables) write. No style, no hidden, no event handler, no element that hides or mirrors text.
ARTICLE: dict[str, frozenset[str]] = {
    "article": frozenset({"class"}),
    "a": frozenset({"href", "title"}),
    "img": frozenset({"alt", "class", "src", "title"}),
    "div": frozenset({"aria-label", "class", "data-vl-spec", "role"}),
    "p": frozenset({"class"}),
    "span": frozenset({"class"}),
    "code": frozenset({"class"}),
    "pre": frozenset({"class"}),  # pymdownx.highlight's <pre class="highlight"> (the how-to-verify page's commands)
    **{f"h{level}": _HEADING for level in range(1, 7)},
    **{name: frozenset() for name in ("strong", "em", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "br", "hr", "blockquote")},
}
# The admonition types the pages write: the templates' own, and each outcome box's (present/outcome.py).
ADMONITIONS = tuple(sorted({"note", "warning", "tip", "info", "danger", *(kind for kind, _ in OUTCOME_BOXES.values())}))
# Class names inside the article: ours (ek-...), admonitions, code blocks and their languages, the article's own.
ARTICLE_CLASS = re.compile(
    r"ek-[a-z0-9-]+|admonition(?:-title)?|" + "|".join(ADMONITIONS) + r"|highlight|language-[a-z0-9]+|md-content__inner|md-typeset"
)

# Around the article: mkdocs-material's markup. Its data-md-* and aria-* attributes configure its scripts
# and screen readers (aria-label is read as text: the chrome check counts it).
PAGE: dict[str, frozenset[str]] = {
    "html": frozenset({"class", "lang"}),
    "head": frozenset(),
    "title": frozenset(),
    "meta": frozenset({"charset", "content", "name", "http-equiv"}),
    "link": frozenset({"href", "rel", "type", "sizes"}),
    "script": frozenset({"id", "src", "type"}),
    "body": frozenset({"dir"}),
    "header": frozenset({"class"}),
    "nav": frozenset({"class", "data-md-level"}),
    "main": frozenset({"class"}),
    "footer": frozenset({"class"}),
    "div": frozenset({"class", "role", "tabindex", "data-md-scrollfix"}),
    "span": frozenset({"class"}),
    "a": frozenset({"class", "href", "title", "rel"}),
    "button": frozenset({"class", "title", "type", "tabindex"}),
    "form": frozenset({"class", "name"}),
    "input": frozenset({"class", "id", "name", "type", "placeholder", "autocapitalize", "autocomplete", "autocorrect", "required", "spellcheck"}),
    "label": frozenset({"class", "for"}),
    "ul": frozenset({"class"}),
    "ol": frozenset({"class", "role"}),
    "li": frozenset({"class"}),
    "img": frozenset({"alt", "src", "class"}),
    # Icons: a path is drawn, never text (no <text>, <tspan> or <foreignObject>).
    "svg": frozenset({"viewBox", "xmlns"}),
    "path": frozenset({"d"}),
}
PAGE_ANY_ATTRIBUTE = re.compile(r"data-md-[a-z-]+|aria-[a-z]+")

# Where the article sits: every element around it (html, body, Material's layout containers) may carry only
# these attributes, with only these class names, so no class or state of the theme's can hide the article
# while the page's chrome shows something else (Material hides a .md-toggle, a closed .md-dialog, ...).
ARTICLE_PLACE: dict[str, frozenset[str]] = {
    "class": frozenset({"no-js", "md-container", "md-main", "md-main__inner", "md-grid", "md-content"}),
    "data-md-component": frozenset({"container", "main", "content"}),
    "lang": frozenset(),  # any language
    "dir": frozenset({"ltr"}),
}

# What a browser shows that a reader of the page's text does not read, or hides that it does: never on a
# page, even outside the article of a host site's page.
SHOWS_UNREAD = frozenset(
    {
        "noembed",
        "noframes",
        "noscript",
        "template",
        "textarea",
        "select",
        "option",
        "object",
        "embed",
        "iframe",
        "text",
        "tspan",
        "textPath",
        "foreignObject",
        # Where the article's relative links and images resolve: another host's, which can draw any chart.
        "base",
    }
)
# A <meta http-equiv="refresh">, noted by the reader of a page as this attribute of its own (the registry lists
# http-equiv for the harmless values other Material versions write): it loads another page, off the site or
# another decision's, in place of the one verified, so it is never on a page.
REFRESH = "http-equiv=refresh"
# A <meta charset> (or Content-Type) declaring another encoding than UTF-8, noted as ``charset=<label>``: a browser
# decodes the page's bytes in it (ISO-2022-JP's escapes turn a heading into characters of an attribute, and a
# comment into the heading), while build writes and verify reads UTF-8. Never on a page.
OTHER_CHARSET = "charset="
# data-vl-spec: charts.js draws every chart on a page, and only the article's charts are compared.
SHOWS_UNREAD_ATTRIBUTES = frozenset({"value", "style", "hidden", "data-vl-spec", REFRESH})
