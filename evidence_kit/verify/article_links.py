"""Where an article's links and images point, and which classes style its elements: what build writes.

The article's text is compared block for block (:mod:`.page_text`), but a reader also reads which chart an
``<img>`` shows, where a link leads and what colour a box has: the two trials' chart images swapped, or the
decision's red "Retain" box given Material's green ``success`` style, change what a reader takes from a page
whose every word is the generated one. So each element's ``class``, ``href`` and ``src`` in the article must be
the generated one, in order, whatever toolchain built the page.

Links are compared by the site file they point to, since MkDocs writes a Markdown link ``x.md`` as ``x.html``
or, with a host's directory URLs, ``x/``, relative to where the page is published. A published URL is read
only when a browser reads it as written: one holding an ASCII tab, newline or other control character or a
space (a browser drops a tab or newline anywhere, so ``java&#9;script:`` runs a script), a backslash (read as
a slash, so ``\\\\host/`` leaves the site), or a scheme or ``//host`` is never the generated link.
"""

from __future__ import annotations

import difflib
import posixpath
import re

from .compare import Mismatch
from .page_text import PageText, Pointer

__all__ = ["link_target", "pointer_mismatches"]

_PLAIN_URL = re.compile(r"[^\x00-\x20\x7f\\]*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _page_key(path: str) -> str:
    """A page by the name both its Markdown and its HTML share (``x`` for ``x.md``, ``x.html``, ``x/index.html``)."""
    for suffix in (".md", ".html"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            return "" if path == "index" else path.removesuffix("/index")
    return path


def link_target(url: str, page: str) -> str | None:
    """The site file (``path#fragment``, a page by :func:`_page_key`) that ``url`` on ``page`` points to, both
    relative to the site's root; ``None`` when ``url`` is not a plain link within the site as a browser reads it."""
    if not _PLAIN_URL.fullmatch(url) or url.startswith("//") or _SCHEME.match(url):
        return None
    path, mark, fragment = url.partition("#")
    if not path:
        target = page
    else:
        joined = posixpath.join(posixpath.dirname(page), path, "index.html" if path.endswith("/") else "")
        target = posixpath.normpath(joined.rstrip("/"))
    return _page_key(target) + mark + fragment


def _meaning(pointer: Pointer, page: str) -> tuple[str, str, str]:
    """What a pointer says on ``page``: a class list as a set, a link by its target (never equal for a URL a
    browser reads otherwise than written)."""
    tag, attr, value = pointer
    if attr == "class":
        return tag, attr, " ".join(sorted(set(value.split())))
    target = link_target(value, page)
    return tag, attr, target if target is not None else f"\0{value}"


def pointer_mismatches(published: PageText, page: str, expected: PageText, source: str) -> list[Mismatch]:
    """Each ``class``, ``href`` and ``src`` in the published article (on ``page``) that is not the generated one
    (of the Markdown ``source``), in order: ``article <img src> 3: published 'dflash/intervals.svg', recomputed
    'cache-layout/intervals.svg'``."""
    got = [_meaning(p, page) for p in published.pointers]
    want = [_meaning(p, source) for p in expected.pointers]
    out: list[Mismatch] = []
    matcher = difflib.SequenceMatcher(a=got, b=want, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        for i in range(max(a2 - a1, b2 - b1)):
            pub = published.pointers[a1 + i] if a1 + i < a2 else None
            rec = expected.pointers[b1 + i] if b1 + i < b2 else None
            tag, attr, _ = pub or rec  # type: ignore[misc]
            out.append(
                (
                    f"article <{tag} {attr}> {min(a1, len(got)) + i + 1}",
                    repr(pub[2]) if pub else "(absent)",
                    repr(rec[2]) if rec else "(absent)",
                )
            )
    return out
