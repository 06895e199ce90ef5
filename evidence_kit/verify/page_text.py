"""What a page shows, read as browsers parse it (html5lib, HTML5's parsing algorithm): its text, figures, charts' specs, links.

A published page is compared with its regenerated Markdown (rendered to HTML by
:mod:`evidence_kit.render.article`) by what a reader sees, not by its markup:
every block of text the page should show (a paragraph, a heading, a list item, a
table row, an image's alt text), whitespace normalised, must be in the
published article, in order and whole. Whatever MkDocs or Material version wrote
the rest of the page, a changed, missing or reordered figure or verdict fails, and
so does any word added to the article (a figure-free sentence reverses a verdict
as surely as a figure) and any active content (a script, a style, a hidden
element), which can change what a reader sees without changing the text: the
article's blocks are the generated ones, one for one, in a built site and in a
host site alike, so nothing rests on a rebuild the toolchain record can skip.

Pages are parsed as a browser parses them, never with ``html.parser``: a comment a
browser closes at ``<!-->`` is closed here too, so text a reader sees is text
this reads. Every element and attribute met is noted (:attr:`PageText.markup`)
for the check against the registry of what the renderer writes
(:mod:`evidence_kit.render.markup`).
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import html5lib

from ..memo import Memo, footprint
from ..render.markup import (
    ARTICLE,
    ARTICLE_CLASS,
    ARTICLE_PLACE,
    OTHER_CHARSET,
    PAGE,
    PAGE_ANY_ATTRIBUTE,
    REFRESH,
    SHOWS_UNREAD,
    SHOWS_UNREAD_ATTRIBUTES,
)
from .compare import Mismatch, json_mismatches

__all__ = [
    "TOKEN",
    "POINTER_ATTRS",
    "Pointer",
    "PageText",
    "read_page",
    "page_tokens",
    "page_mismatches",
    "spec_mismatches",
    "browser_url",
    "external_urls",
    "title_mismatches",
    "chrome_figures",
    "is_figure",
    "search_mismatches",
    "markup_mismatches",
]

# A figure as pages write it: signs (including the true minus), thousands separators, decimals, a percent.
# Anything else alphanumeric (words, hashes, run names like r1-8192-c4) is one token.
TOKEN = re.compile(r"[+\u2212-]?\d[\d,]*(?:\.\d+)?%?(?![^\W_])|[^\W_]+(?:[-'][^\W_]+)*")
_FIGURE = re.compile(r"[+\u2212-]?\d")
SKIP_TAGS = {"script", "style", "svg", "nav", "header", "footer"}
# Never visible text, wherever they are.
CODE_TAGS = {"script", "style", "svg", "template"}
# Elements that run code, load content or restyle a page: never in a generated article, and
# never read as text, so each one inside the article becomes a marker of its own.
ACTIVE_TAGS = {"script", "style", "iframe", "object", "embed", "link", "meta", "base", "form", "svg", "template"}
# Attributes that change what a reader sees without changing the text (dir mirrors it: 48/48 reads 84/84).
ACTIVE_ATTRS = {"style", "hidden"}
ARTICLE_ACTIVE_ATTRS = {"dir"}  # the page's <html dir="ltr"> is the theme's; inside the article it is not
# Elements that hide or reorder text without a style (noscript, a closed dialog or details, bdo) or that
# frame a page rather than hold its content (nav, header, footer: left out of the text): the generator
# writes none inside an article, so inside one each is a marker of its own, like a script.
CONCEALING_TAGS = {"noscript", "dialog", "details", "summary", "bdo", "nav", "header", "footer"}
# Elements that start and end a block of text; a table cell only separates words within its row.
BLOCK_TAGS = {
    "p",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "div",
    "br",
    "pre",
    "blockquote",
    "table",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "hr",
    "figure",
    "figcaption",
    "details",
    "summary",
    "section",
    "caption",
}
CELL_TAGS = {"td", "th"}
SHOWN_ATTRS = ("alt", "aria-label", "title")
URL_ATTRS = ("href", "src", "action", "data", "poster", "srcset")

# What HTML collapses into one space (its ASCII whitespace), and nothing else: str.split() also splits at
# U+1680 OGHAM SPACE MARK (drawn as a dash), U+001C-U+001F, U+0085, which a browser shows.
_HTML_SPACE = re.compile(r"[ \t\n\f\r]+")


def html_spaced(text: str) -> str:
    """``text`` with its HTML whitespace collapsed to single spaces and trimmed, as a browser lays it out."""
    return _HTML_SPACE.sub(" ", text).strip(" ")


Part = tuple[str, str]  # ("text", words) | ("break", "") | ("marker", "<script>")
Pointer = tuple[str, str, str]  # (element, attribute, value): where it points (href, src) or how it is styled (class)
# What says where an element points or how the theme styles it: compared, in order, with the generated article.
POINTER_ATTRS = ("class", "href", "src")


def _local(name: str) -> str:
    """An element or attribute name without the namespace html5lib gives SVG and MathML ones."""
    return name.rsplit("}", 1)[-1]


def _walk(html: str, parser: _Parser) -> None:
    """Parse ``html`` as a browser does and hand the tree to ``parser`` as start tags, text and end tags, in
    document order. Comments are left out (their tails are text); the walk keeps its own stack."""
    root = html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)
    pending: list[tuple[str, Any]] = [("open", root)]
    while pending:
        kind, item = pending.pop()
        if kind == "text":
            parser.handle_data(item)
        elif kind == "close":
            parser.handle_endtag(item)
        elif isinstance(item.tag, str):  # an element; a comment's tag is a function
            name = _local(item.tag)
            parser.handle_starttag(name, [(_local(k), v) for k, v in item.attrib.items()])
            todo: list[tuple[str, Any]] = [("text", item.text)] if item.text else []
            for child in item:
                todo.append(("open", child))
                if child.tail:
                    todo.append(("text", child.tail))
            todo.append(("close", name))
            pending += reversed(todo)


_CHARSET = re.compile(r"charset\s*=\s*[\"']?([^\s;\"']+)", re.I)
# The labels of UTF-8 (WHATWG Encoding): the encoding build writes and this reader decodes every page in.
UTF8_LABELS = frozenset({"utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"})


def _meta_notes(attrs: list[tuple[str, str | None]]) -> list[str]:
    """What a ``<meta>`` makes a browser do that no attribute name says, as attributes of their own: load another
    page in place of this one (a refresh), or decode the page's bytes otherwise than as UTF-8 (``charset=…``)."""
    values = {key: value or "" for key, value in attrs}
    equiv = values.get("http-equiv", "").strip().lower()
    notes = [REFRESH] if equiv == "refresh" else []
    declared = values.get("charset")
    if declared is None and equiv == "content-type" and (match := _CHARSET.search(values.get("content", ""))):
        declared = match[1]
    if declared is not None and declared.strip().lower() not in UTF8_LABELS:
        notes.append(OTHER_CHARSET + declared.strip().lower())
    return notes


class _Parser:
    """The main content (the ``<article>`` if there is one) as text, breaks and markers; the rest apart."""

    def __init__(self) -> None:
        self.markup: set[tuple[bool, str, str]] = set()  # (inside the article, element, attribute or "")
        self.classes: set[str] = set()  # class names inside the article
        self.parts: list[Part] = []
        self.article: list[Part] | None = None
        self.specs: list[str] = []
        self.urls: list[str] = []
        self.article_urls: list[str] = []
        self.pointers: list[Pointer] = []  # (element, attribute, value) of POINTER_ATTRS, in document order
        self.article_pointers: list[Pointer] = []  # those inside the article, the article element's own aside
        self.title: list[str] = []
        self.chrome: list[str] = []
        self._code = 0
        self._skip = 0
        self._in_article = 0
        self._in_title = False
        self._open: list[tuple[str, list[tuple[str, str | None]]]] = []  # the elements open, outermost first
        self.place: list[tuple[str, list[tuple[str, str | None]]]] = []  # those around the (first) article

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        outer = tag == "article" and self.article is None
        if tag == "article":
            # Entered before its attributes are read: the article's own hidden, style, on* or dir is a marker in it.
            self._in_article += 1
            if self.article is None:
                self.article = []
        self._note_markup(tag, attrs)
        self._note_links(tag, attrs, outer=outer)
        if tag in ACTIVE_TAGS or (tag in CONCEALING_TAGS and self._in_article):
            self._add("marker", f"<{tag}>")
        for key, _ in attrs:
            if key in ACTIVE_ATTRS or key.startswith("on") or (key in ARTICLE_ACTIVE_ATTRS and self._in_article):
                self._add("marker", f"<{tag} {key}>")
        if tag in SKIP_TAGS:
            self._skip += 1
        self._in_title = tag == "title"
        if tag in CODE_TAGS:
            self._code += 1
        if not self._in_article and not self._code:
            self.chrome += [f" {v} " for k, v in attrs if k in (*SHOWN_ATTRS, "placeholder") and v]
        if tag in BLOCK_TAGS:
            self._add("break", "")
        elif tag in CELL_TAGS:
            self._add("text", " ")
        if not self._skip:
            for key in SHOWN_ATTRS:
                if values.get(key):
                    self._add("break", "")
                    self._add("text", values[key] or "")
                    self._add("break", "")
            # In the article of a published page; anywhere in a regenerated one (it has no article).
            if values.get("data-vl-spec") is not None and (self._in_article or self.article is None):
                self.specs.append(values["data-vl-spec"] or "")

    def _note_links(self, tag: str, attrs: list[tuple[str, str | None]], *, outer: bool) -> None:
        """Note the element's URLs and its pointers (:data:`POINTER_ATTRS`); ``outer``: the article element itself."""
        urls = [v for k, v in attrs if k in URL_ATTRS and v]
        values = dict(attrs)
        pointers = [(tag, k, values[k] or "") for k in POINTER_ATTRS if k in values]
        self.urls += urls
        self.pointers += pointers
        if self._in_article:
            self.article_urls += urls
            self.article_pointers += [] if outer else pointers

    def _note_markup(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Note the element and its attributes, and the class names it carries inside the article."""
        if tag == "article" and not self.place and self._in_article == 1:
            self.place = list(self._open)
        self._open.append((tag, attrs))
        inside = bool(self._in_article)
        self.markup.add((inside, tag, ""))
        for key, value in attrs:
            self.markup.add((inside, tag, key))
            if inside and key == "class":
                self.classes.update((value or "").split())
        if tag == "meta":
            self.markup.update((inside, tag, note) for note in _meta_notes(attrs))

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()
        if tag == "title":
            self._in_title = False
        if tag in CODE_TAGS and self._code:
            self._code -= 1
        if tag in SKIP_TAGS and self._skip:
            self._skip -= 1
        if tag in BLOCK_TAGS:
            self._add("break", "")
        if tag == "article" and self._in_article:
            self._in_article -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
            return
        if not self._in_article and not self._code:
            self.chrome.append(data)
        if not self._skip:
            self._add("text", data)

    def _add(self, kind: str, value: str) -> None:
        if kind != "marker" and self._skip:
            return
        self.parts.append((kind, value))
        if self._in_article and self.article is not None:
            self.article.append((kind, value))


@dataclass(frozen=True)
class PageText:
    """A page read once: its main content as blocks and markers, its charts' specs, links, title and chrome.
    Tuples and frozensets all through: one answer is shared by every check of the same text in the process."""

    segments: tuple[Part, ...]  # ("block", normalised text) | ("marker", "<script>"), in order
    specs: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    article_urls: tuple[str, ...] = ()  # those inside the article
    pointers: tuple[Pointer, ...] = ()  # class, href, src of the main content's elements, in order
    title: str = ""
    chrome: tuple[str, ...] = ()
    markup: frozenset[tuple[bool, str, str]] = frozenset()  # (in the article, element, attribute or "")
    classes: frozenset[str] = frozenset()  # class names inside the article
    place: tuple[tuple[str, tuple[tuple[str, str | None], ...]], ...] = ()  # elements around the article

    @property
    def blocks(self) -> list[str]:
        return [value for kind, value in self.segments if kind == "block"]

    def tokens(self) -> list[str]:
        """Words, figures and markers of the main content, in order."""
        out: list[str] = []
        for kind, value in self.segments:
            out += TOKEN.findall(value) if kind == "block" else [value]
        return out


def _segments(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    text: list[str] = []
    for kind, value in parts + [("break", "")]:
        if kind == "text":
            text.append(value)
            continue
        block = html_spaced("".join(text))
        if block:
            out.append(("block", block))
        text = []
        if kind == "marker":
            out.append(("marker", value))
    return out


def read_page(html: str) -> PageText:
    """Parse ``html`` once: the ``<article>`` if it has one, else the whole page, as text blocks and markers.
    The same text read again in this process gives the same (shared, frozen) answer without a second parse."""
    return _READ.get(html, lambda: _read_page(html))


# A read page is many small objects (~1.4 kB however short its text, ~13 bytes a character of small blocks):
# each costs its page's characters and the bytes it holds, or a search index of short entries keeps gigabytes.
_READ: Memo[PageText] = Memo(64 * 1024 * 1024, lambda html, page: len(html) + footprint(page))


def _read_page(html: str) -> PageText:
    parser = _Parser()
    _walk(html, parser)
    main = parser.article if parser.article is not None else parser.parts
    return PageText(
        segments=tuple(_segments(main)),
        specs=tuple(parser.specs),
        urls=tuple(parser.urls),
        article_urls=tuple(parser.article_urls if parser.article is not None else parser.urls),
        pointers=tuple(parser.article_pointers if parser.article is not None else parser.pointers),
        title=html_spaced("".join(parser.title)),
        chrome=tuple(TOKEN.findall(" ".join(parser.chrome))),
        markup=frozenset(parser.markup),
        classes=frozenset(parser.classes),
        place=tuple((tag, tuple(attrs)) for tag, attrs in parser.place),
    )


def page_tokens(html: str) -> list[str]:
    """Words and figures of a page's main text, in order (tags, scripts and navigation left out)."""
    return read_page(html).tokens()


def is_figure(token: str) -> bool:
    """A token that is a number as pages write it (``1.735``, ``−1.7%``, ``12``), or that holds a numeral of any
    kind (``x2``, a superscript ``⁴⁰``, a circled ``①``, a Roman ``Ⅳ``, a CJK ``四十``): a reader reads each as a
    number, so none may appear where the evidence shows none."""
    return bool(_FIGURE.match(token)) or any(char.isnumeric() for char in token)


def _spans(page: PageText) -> tuple[list[str], list[tuple[int, int, str]]]:
    """Tokens of the main content and each block's token span."""
    tokens: list[str] = []
    spans: list[tuple[int, int, str]] = []
    for kind, value in page.segments:
        start = len(tokens)
        tokens += TOKEN.findall(value) if kind == "block" else [value]
        if kind == "block":
            spans.append((start, len(tokens), value))
    return tokens, spans


def _token_mismatches(published: list[str], expected: list[str], context: int = 6) -> list[tuple[Mismatch, int, int]]:
    """Every difference between the two token sequences: ``(mismatch, b1, b2)``."""
    matcher = difflib.SequenceMatcher(a=published, b=expected, autojunk=False)
    out = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        before = " ".join(expected[max(0, b1 - context) : b1])
        out.append(((f"after '{before}'", " ".join(published[a1:a2]) or "(absent)", " ".join(expected[b1:b2]) or "(absent)"), b1, b2))
    return out


def _missing_blocks(published: PageText, spans: list[tuple[int, int, str]], named: list[tuple[int, int]]) -> list[Mismatch]:
    """Blocks not found whole, in order, in the published text, unless a token mismatch already names them."""
    text = " ".join(published.blocks)
    out: list[Mismatch] = []
    pos = 0
    for start, end, block in spans:
        match = re.compile(r"(?<!\S)" + re.escape(block) + r"(?!\S)").search(text, pos)
        if match:
            pos = match.end()
            continue
        if any((b1 < end and start < b2) if b2 > b1 else start < b1 < end for b1, b2 in named):
            continue
        close = difflib.get_close_matches(block, published.blocks, n=1, cutoff=0.6)
        shown = block if len(block) <= 80 else block[:77] + "..."
        out.append((f"text '{shown}'", close[0] if close else "(absent)", "this text, whole and in this order"))
    return out


def page_mismatches(published: PageText, expected: PageText) -> list[Mismatch]:
    """What the published article shows other than the expected one: no word may be added anywhere (a
    figure-free sentence, ``This decision was reversed.``, changes what a reader reads as surely as a figure),
    and the blocks must be the expected ones, one for one, in order, whatever toolchain built the page."""
    expected_tokens, spans = _spans(expected)
    found = _token_mismatches(published.tokens(), expected_tokens)
    named = [(b1, b2) for _, b1, b2 in found]
    out = [m for m, _, _ in found] + _missing_blocks(published, spans, named)
    if not out and published.segments != expected.segments:
        for i, (got, want) in enumerate(zip([*published.segments, ("", "(absent)")], [*expected.segments, ("", "(absent)")])):
            if got != want:
                out.append((f"block {i + 1} of the article", got[1], f"{want[1]} (the generated blocks, one for one)"))
                break
    return out


def spec_mismatches(published: Sequence[str], expected: Sequence[str]) -> list[Mismatch]:
    """Differences between what each interactive chart is given to draw and what the evidence gives it: the
    whole ``data-vl-spec`` (data, title, transforms, encodings, marks, axes, scales, labels, config), exactly as
    vega-embed receives it (``JSON.parse`` of the attribute), ``chart N spec title``.

    The text must be the derived one character for character: no part of a spec is the chart library's to
    vary, since every part of it can show a reader a figure (a title, a text mark) or change one (a
    transform). Where both parse, the report names each field that differs."""
    out: list[Mismatch] = []
    for i in range(max(len(published), len(expected))):
        name = f"chart {i + 1}"
        if i >= len(published):
            out.append((name, "(absent)", "an interactive chart"))
            continue
        if i >= len(expected):
            out.append((name, "an interactive chart", "(absent)"))
            continue
        if published[i] == expected[i]:
            continue
        try:
            doc = json.loads(published[i])
        except (ValueError, RecursionError) as err:
            out.append((f"{name} spec", f"not JSON ({err})", "a Vega-Lite spec"))
            continue
        fields = [(f"{name} spec {figure}", pub, rec) for figure, pub, rec in json_mismatches(doc, json.loads(expected[i]))]
        # Equal as JSON values yet another text (a key repeated, 1 for 1.0, other escapes): still not the spec derived.
        out += fields or [(f"{name} spec", f"{len(published[i])} characters, not the derived text", f"{len(expected[i])} characters")]
    return out


def browser_url(url: str) -> str:
    """``url`` as a browser reads it before resolving it (WHATWG URL parsing): C0 controls and spaces at its ends
    dropped, every ASCII tab and newline dropped, a backslash read as a slash (``java&#9;script:`` is
    ``javascript:``, ``\\\\host/`` is ``//host/``)."""
    return re.sub(r"[\t\n\r]", "", url).strip("".join(map(chr, range(0x21)))).replace("\\", "/")


def external_urls(page: PageText, *, article_only: bool = False) -> list[str]:
    """URLs in a page (or only in its article) that leave the site as a browser reads them: any scheme, or
    ``//host``, however spelt (:func:`browser_url`)."""
    out = []
    for url in page.article_urls if article_only else page.urls:
        text = browser_url(url)
        if text.startswith("//") or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", text):
            out.append(url.strip())
    return out


def title_mismatches(page: PageText, page_title: str, allowed: set[str]) -> list[Mismatch]:
    """The ``<title>`` must show the page's generated title whole, and no figure but those in ``allowed``."""
    title = html_spaced(page_title)
    whole = re.search(r"(?<!\S)" + re.escape(title) + r"(?!\S)", page.title) if title else True
    extra = [t for t in TOKEN.findall(page.title) if is_figure(t) and t not in allowed]
    if whole and not extra:
        return []
    return [("page title", page.title or "(absent)", f"{title} (and the site name)")]


def chrome_figures(page: PageText, allowed: set[str]) -> list[str]:
    """Figures the page shows outside its article (header, navigation, footer, tooltips) not in ``allowed``."""
    return [t for t in page.chrome if is_figure(t) and t not in allowed]


def search_mismatches(index: Any, pages: dict[str, PageText]) -> Iterator[Mismatch]:
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
        extra = tokens - Counter(pages[page].tokens())
        if extra:
            shown = " ".join(sorted(extra.elements())[:20])
            yield f"entries for {page}", shown, "(not on the page)"


def markup_mismatches(page: PageText, *, host: bool = False) -> list[Mismatch]:
    """Elements, attributes and article class names the renderer does not write (:mod:`evidence_kit.render.markup`),
    one mismatch each, sorted. ``host``: a page of a host MkDocs site, whose markup outside the article is the
    host theme's: there only what shows text the comparison does not read is refused."""
    out: list[Mismatch] = []
    for inside, tag, attr in sorted(page.markup):
        if inside:
            allowed = ARTICLE.get(tag)
            ok = allowed is not None and (not attr or attr in allowed)
        elif host:
            ok = tag not in SHOWS_UNREAD and attr not in SHOWS_UNREAD_ATTRIBUTES and not attr.startswith(OTHER_CHARSET)
        else:
            allowed = PAGE.get(tag)
            ok = allowed is not None and (not attr or attr in allowed or bool(PAGE_ANY_ATTRIBUTE.fullmatch(attr)))
        if not ok:
            where = "in the article" if inside else "outside the article"
            shown = f"<{tag} {attr}>" if attr else f"<{tag}>"
            out.append((f"markup {where}", shown, "only the elements and attributes build writes (evidence_kit.render.markup)"))
    return out + _class_mismatches(page) + ([] if host else _place_mismatches(page))


def _class_mismatches(page: PageText) -> list[Mismatch]:
    """Class names inside the article that the renderer does not write."""
    return [
        ("markup in the article", f'class "{name}"', "only the class names build writes (evidence_kit.render.markup)")
        for name in sorted(page.classes)
        if not ARTICLE_CLASS.fullmatch(name)
    ]


def _place_mismatches(page: PageText) -> list[Mismatch]:
    """Attributes and class names around the article that Material does not write there
    (:data:`evidence_kit.render.markup.ARTICLE_PLACE`): a theme class that hides what it holds hides the article."""
    out: set[Mismatch] = set()
    for tag, attrs in page.place:
        for key, value in attrs:
            allowed = ARTICLE_PLACE.get(key)
            words = (value or "").split() if key == "class" else [value or ""]
            bad = [w for w in words if allowed is None or (allowed and w not in allowed)]
            if bad:
                shown = f'<{tag} {key}="{" ".join(bad)}">' if allowed is not None else f"<{tag} {key}>"
                out.add(("markup around the article", shown, "only the layout Material writes around it (evidence_kit.render.markup)"))
    return sorted(out)
