"""Escaping for everything the site shows that did not come from our own templates.

Operator prose, titles, labels and any string read from evidence are untrusted:
they must render as the text they are, never as Markdown or HTML. Characters that
would start HTML or inline Markdown become HTML character references, which
Python-Markdown passes through as literal text; block markers only matter at the
start of a line, so paragraphs are joined and their first character neutralised.
"""

from __future__ import annotations

import re

import yaml
from markupsafe import Markup

__all__ = ["md_text", "md_prose", "md_cell", "html_text", "yaml_string", "Markup"]

# HTML specials, and every character that opens inline Markdown in the extensions
# the site enables (emphasis, code, links, images, tables, attribute lists, escapes).
# Quotes need no escaping: these strings never go into an HTML attribute.
_INLINE = re.compile(r"[&<>\\`*_\[\]{}|!#]")
# List markers need a space after them (so "+38.60%" and "1.735" stay as they are);
# headings and quotes do not. A run of "-" is a horizontal rule and of "~" a code
# fence (MkDocs always enables fenced_code), so their first character is neutralised too.
_BLOCK_START = re.compile(r"^(\s*)([-+*](?=\s|$)|-(?=-)|~(?=~)|[#>]|\d+[.)](?=\s|$))")


def _ref(match: re.Match[str]) -> str:
    return f"&#{ord(match.group(0))};"


def md_text(value: object) -> str:
    """One line of untrusted text, safe anywhere in a Markdown line, its start included."""
    text = _INLINE.sub(_ref, re.sub(r"\s+", " ", str(value)))
    # At the start of a line a list, heading or quote marker would still be syntax.
    match = _BLOCK_START.match(text)
    if match:
        text = match.group(1) + "".join(f"&#{ord(ch)};" for ch in match.group(2)) + text[match.end() :]
    return text


def md_cell(value: object) -> str:
    """Untrusted text for a pipe-table cell (``|`` is escaped by :func:`md_text`)."""
    return md_text(value) or " "


def md_prose(value: object) -> str:
    """Untrusted prose: paragraphs (split on blank lines), each safe as a Markdown block."""
    paragraphs = [p for p in re.split(r"\n\s*\n", str(value)) if p.strip()]
    return "\n\n".join(md_text(paragraph.strip()) for paragraph in paragraphs)


def html_text(value: object) -> str:
    """Untrusted text for a place MkDocs inserts unescaped into HTML (page titles, nav)."""
    return " ".join(str(value).split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#39;")


def yaml_string(value: str) -> str:
    """A YAML double-quoted scalar, ASCII only, on one line: PyYAML's own quoting, which writes a character
    outside the Basic Multilingual Plane (an emoji) as ``\\UXXXXXXXX`` (JSON's surrogate pair would reach
    MkDocs as two lone surrogates that no UTF-8 page can hold)."""
    return yaml.dump(value, Dumper=yaml.SafeDumper, default_style='"', allow_unicode=False, width=float("inf")).rstrip("\n")
