"""An independent survivor check: plain substring search, written without the redactor's code.

It reads every file's bytes and every relative path, lower-cases them, and also
looks at the text with JSON and TOML escapes (``\\uXXXX``, ``\\UXXXXXXXX``, ``\\/``) and
URL escapes undone, with invisible characters removed and full-width letters folded
(NFKC), and at whatever a base64 run decodes to, so a canary that survived behind an
escape, a zero-width space or an encoding is still found.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote


def _decoded(text: str) -> list[str]:
    unescaped = re.sub(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})", lambda m: chr(int(m.group(1) or m.group(2), 16)), text).replace("\\/", "/")
    shown = [text, unescaped, unquote(text), unquote(unescaped)]
    return shown + [unicodedata.normalize("NFKC", re.sub("[\u00ad\u200b-\u200f\u2060\ufeff]", "", t)) for t in shown]


def _base64_decoded(text: str) -> list[str]:
    """What each base64-looking run decodes to. A hash or any long hex run is one, and decodes
    to random bytes: a short canary turns up in them by chance (``vm`` in about one sha256 of
    200), so only canaries of 8 characters or more are looked for here (the redactor hunts the
    base64 of such values only)."""
    shown = []
    for run in re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", text):
        try:
            shown.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("latin-1"))
        except (binascii.Error, ValueError):
            pass
    return shown


def _found(canary: str, text: str) -> bool:
    """A canary of 8 characters or more anywhere; a shorter one only as a whole word (the documented
    rule: `vm` is not in `vmstat`, nor in a pseudonym spelled with those letters); a number only as
    a whole number."""
    if canary[:1].isdigit() or canary[-1:].isdigit():
        return re.search(r"(?<![0-9])(?<![0-9]\.)" + re.escape(canary) + r"(?![0-9])(?!\.[0-9])", text) is not None
    if len(canary) >= 8:
        return canary in text
    return re.search(r"(?<![a-z0-9])" + re.escape(canary) + r"(?![a-z0-9])", text) is not None


def survivors(folder: Path, canaries: tuple[str, ...] | list[str], skip: tuple[str, ...] | list[str] = ()) -> list[tuple[str, str]]:
    """``(relative path, canary)`` for every canary found in a file's name or content (but ``skip``'s files)."""
    found = []
    wanted = [c.lower() for c in canaries]
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(folder).as_posix()
        if rel in skip:
            continue
        content = path.read_bytes().decode("utf-8", errors="replace")
        views = [(view, wanted) for view in _decoded(rel) + _decoded(content)]
        views += [(view, [c for c in wanted if len(c) >= 8]) for view in _base64_decoded(rel) + _base64_decoded(content)]
        for view, looked_for in views:
            lowered = view.lower()
            for canary in looked_for:
                if _found(canary, lowered):
                    found.append((rel, canary))
    return sorted(set(found))
