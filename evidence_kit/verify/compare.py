"""Compare what a site publishes with what was recomputed: JSON documents, CSV tables, pages.

Each function returns ``(figure, published, recomputed)`` triples, one per
mismatch, so the report can say which figure differs and by how much.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import material

__all__ = [
    "json_mismatches", "csv_mismatches", "page_tokens", "page_specs", "external_urls", "spec_mismatches",
    "token_mismatches", "search_mismatches", "title_mismatches", "chrome_tokens", "theme_words", "Mismatch",
]

Mismatch = tuple[str, str, str]
# A figure as pages write it: signs (including the true minus), thousands separators, decimals, a percent.
# Anything else alphanumeric (words, hashes, run names like r1-8192-c4) is one token.
TOKEN = re.compile(r"[+\u2212-]?\d[\d,]*(?:\.\d+)?%?(?![^\W_])|[^\W_]+(?:[-'][^\W_]+)*")
SKIP_TAGS = {"script", "style", "svg", "nav", "header", "footer"}
# Never visible text, wherever they are.
CODE_TAGS = {"script", "style", "svg", "template"}


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) if not isinstance(value, str) else value


def json_mismatches(published: Any, recomputed: Any, path: str = "", ignore: frozenset[str] = frozenset()) -> Iterator[Mismatch]:
    """Every leaf where two JSON documents differ, named by its path (``trials[0].groups[1].verdict.win``)."""
    if isinstance(published, dict) and isinstance(recomputed, dict):
        for key in sorted(set(published) | set(recomputed)):
            where = f"{path}.{key}" if path else key
            if where in ignore:
                continue
            if key not in published:
                yield where, "(absent)", _show(recomputed[key])
            elif key not in recomputed:
                yield where, _show(published[key]), "(absent)"
            else:
                yield from json_mismatches(published[key], recomputed[key], where, ignore)
    elif isinstance(published, list) and isinstance(recomputed, list):
        for i in range(max(len(published), len(recomputed))):
            where = f"{path}[{i}]"
            if i >= len(published):
                yield where, "(absent)", _show(recomputed[i])
            elif i >= len(recomputed):
                yield where, _show(published[i]), "(absent)"
            else:
                yield from json_mismatches(published[i], recomputed[i], where, ignore)
    elif type(published) is not type(recomputed) and not (
        # 3 and 3.0 are the same figure; a boolean is never a number (True == 1 in Python).
        isinstance(published, (int, float)) and isinstance(recomputed, (int, float))
        and not isinstance(published, bool) and not isinstance(recomputed, bool)
    ):
        yield path or "(document)", _show(published), _show(recomputed)
    elif published != recomputed:
        yield path or "(document)", _show(published), _show(recomputed)


def csv_mismatches(published: bytes, recomputed: bytes, key: str = "run") -> Iterator[Mismatch]:
    """Cells that differ between two CSV tables with a header row, named ``line N <key>: column``."""
    try:
        pub_rows = list(csv.DictReader(io.StringIO(published.decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error) as err:
        yield "(table)", f"not readable CSV ({err})", "a CSV table"
        return
    rec_rows = list(csv.DictReader(io.StringIO(recomputed.decode("utf-8"))))
    pub_head = published.split(b"\n", 1)[0].decode("utf-8", "replace")
    rec_head = recomputed.split(b"\n", 1)[0].decode("utf-8", "replace")
    if pub_head != rec_head:
        yield "header", pub_head, rec_head
        return
    for i in range(max(len(pub_rows), len(rec_rows))):
        line = i + 2
        if i >= len(pub_rows):
            yield f"line {line}", "(absent)", f"row {rec_rows[i].get(key, '')}"
            continue
        if i >= len(rec_rows):
            yield f"line {line}", f"row {pub_rows[i].get(key, '')}", "(absent)"
            continue
        for column, want in rec_rows[i].items():
            got = pub_rows[i].get(column)
            if got != want:
                yield f"line {line} {rec_rows[i].get(key, '')}: {column}", str(got), str(want)


# Elements that run code, load content or restyle a page: never in a generated article, and
# never read as text, so each one inside the article becomes a token of its own.
ACTIVE_TAGS = {"script", "style", "iframe", "object", "embed", "link", "meta", "base", "form", "svg", "template"}
# Attributes that change what a reader sees without changing the text.
ACTIVE_ATTRS = {"style", "hidden"}


class _TextParser(HTMLParser):
    """What a page shows in its main content (the ``<article>`` if there is one).

    Text, image alt text and ARIA labels become words and figures; an element or
    attribute that could run code or hide text becomes a marker token; every
    interactive chart's Vega-Lite spec (``data-vl-spec``) is kept apart, to be
    compared as JSON. Outside the article, every ``href``/``src`` is kept so
    that links off the site can be reported.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[tuple[str, str]] = []
        self.article: list[tuple[str, str]] | None = None
        self.specs: list[str] = []
        self.urls: list[str] = []
        self.title: list[str] = []
        self.chrome: list[str] = []
        self._code = 0
        self._skip = 0
        self._in_article = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.urls += [v for k, v in attrs if k in ("href", "src", "action", "data", "poster", "srcset") and v]
        if tag in ACTIVE_TAGS:
            self._marker(f"<{tag}>")
        for key, _ in attrs:
            if key in ACTIVE_ATTRS or key.startswith("on"):
                self._marker(f"<{tag} {key}>")
        if tag in SKIP_TAGS:
            self._skip += 1
        self._in_title = tag == "title"
        if tag in CODE_TAGS:
            self._code += 1
        if not self._in_article and not self._code:
            self.chrome += [f" {v} " for k, v in attrs if k in ("alt", "aria-label", "title", "placeholder") and v]
        if tag == "article":
            self._in_article += 1
            if self.article is None:
                self.article = []
        if tag in ("td", "th", "p", "li", "br", "tr", "h1", "h2", "h3", "h4", "div"):
            self._add(" \n ")
        if not self._skip:
            for key in ("alt", "aria-label", "title"):
                if values.get(key):
                    self._add(f" {values[key]} ")
            # In the article of a published page; anywhere in a regenerated one (it has no article).
            if values.get("data-vl-spec") is not None and (self._in_article or self.article is None):
                self.specs.append(values["data-vl-spec"] or "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in SKIP_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in CODE_TAGS and self._code:
            self._code -= 1
        if tag in SKIP_TAGS and self._skip:
            self._skip -= 1
        if tag == "article" and self._in_article:
            self._in_article -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
            return
        if not self._in_article and not self._code:
            self.chrome.append(data)
        if not self._skip:
            self._add(data)

    def _marker(self, token: str) -> None:
        self.parts.append(("token", token))
        if self._in_article and self.article is not None:
            self.article.append(("token", token))

    def _add(self, text: str) -> None:
        self.parts.append(("text", text))
        if self._in_article and self.article is not None:
            self.article.append(("text", text))


def _parse(html: str) -> _TextParser:
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    return parser


def _tokens(parts: list[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    text: list[str] = []
    for kind, value in parts + [("token", "")]:
        if kind == "text":
            text.append(value)
            continue
        out += TOKEN.findall("".join(text))
        text = []
        if value:
            out.append(value)
    return out


def page_tokens(html: str) -> list[str]:
    """Words and figures of a page's main text, in order (tags, scripts and navigation left out)."""
    parser = _parse(html)
    return _tokens(parser.article if parser.article is not None else parser.parts)


def page_specs(html: str) -> list[str]:
    """The Vega-Lite spec of every interactive chart in a page's main content, as written."""
    return _parse(html).specs


def page_urls(html: str) -> list[str]:
    """Every ``href``/``src`` (and similar) in the whole page, in order."""
    return _parse(html).urls


def external_urls(html: str) -> list[str]:
    """URLs in a page that leave the site: a scheme other than ``#``-free relative, or ``//host``."""
    out = []
    for url in page_urls(html):
        text = url.strip()
        if text.startswith("//") or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", text):
            out.append(text)
    return out


def spec_mismatches(published: list[str], recomputed: list[str]) -> Iterator[Mismatch]:
    """Differences between the charts' specs, named ``chart N: path.to.field``."""
    for i in range(max(len(published), len(recomputed))):
        name = f"chart {i + 1}"
        if i >= len(published):
            yield name, "(absent)", "an interactive chart"
            continue
        if i >= len(recomputed):
            yield name, "an interactive chart", "(absent)"
            continue
        try:
            doc = json.loads(published[i])
        except ValueError as err:
            yield f"{name} spec", f"not JSON ({err})", "a Vega-Lite spec"
            continue
        for figure, pub, rec in json_mismatches(doc, json.loads(recomputed[i])):
            yield f"{name} spec {figure}", pub, rec


def token_mismatches(published: list[str], recomputed: list[str], context: int = 6) -> Iterator[Mismatch]:
    """Differences between two token streams, each with the recomputed words before it as its name."""
    matcher = difflib.SequenceMatcher(a=published, b=recomputed, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        before = " ".join(recomputed[max(0, b1 - context):b1])
        yield f"after '{before}'", " ".join(published[a1:a2]) or "(absent)", " ".join(recomputed[b1:b2]) or "(absent)"


def search_mismatches(index: Any, pages: dict[str, str]) -> Iterator[Mismatch]:
    """Words and figures of MkDocs' search index that the page it points to does not show.

    The index splits each page into sections; all of a page's sections together
    must be made of the page's own tokens (as a multiset), so a figure changed
    or added in a search result is caught once the page itself is verified.
    """
    docs = index.get("docs") if isinstance(index, dict) else None
    if not isinstance(docs, list):
        yield "(document)", "no 'docs' list", "MkDocs' search index"
        return
    found: dict[str, Counter[str]] = {}
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in ("location", "title", "text")):
            yield f"docs[{i}]", "not a search entry", "location, title and text"
            continue
        page = doc["location"].split("#", 1)[0] or "index.html"
        found.setdefault(page, Counter()).update(page_tokens(doc["title"]) + page_tokens(doc["text"]))
    for page, tokens in sorted(found.items()):
        if page not in pages:
            yield f"entry for {page}", "an entry", "(no such page)"
            continue
        extra = tokens - Counter(page_tokens(pages[page]))
        if extra:
            shown = " ".join(sorted(extra.elements())[:20])
            yield f"entries for {page}", shown, "(not on the page)"


def title_mismatches(html: str, page_title: str, site_name: str) -> Iterator[Mismatch]:
    """The page's ``<title>`` must be its generated title followed by the site's name (Material's form)."""
    published = TOKEN.findall("".join(_parse(html).title))
    expected = TOKEN.findall(f"{page_title} - {site_name}")
    if published != expected:
        yield "page title", " ".join(published) or "(absent)", " ".join(expected)


def chrome_tokens(html: str) -> list[str]:
    """Words and figures a page shows outside its article: header, navigation, footer, tooltips."""
    return TOKEN.findall(" ".join(_parse(html).chrome))


def theme_words() -> frozenset[str]:
    """Every word of the installed Material theme's English interface strings ("Skip to content", ...)."""
    path = Path(material.__file__).resolve().parent / "templates" / "partials" / "languages" / "en.html"
    strings = re.findall(r'^\s*"[\w.]+": "(.*)",?$', path.read_text("utf-8"), re.M)
    return frozenset(TOKEN.findall(" ".join(strings)))
