"""Text from a file name or a file, shown on one line: every problem stays one line, naming its file.

A file name may hold any byte but ``/`` and NUL: a newline would split a
problem into two lines (the second one free to read like a verdict), a
carriage return or an escape sequence could overwrite what a terminal already
shows, a bidirectional override reorders it, and bytes that are not UTF-8
(which Python carries as lone surrogates) cannot be written as UTF-8 at all.
Such characters are shown as Python-style escapes (``\\n``, ``\\x1b``,
``\\u202e``; an undecodable byte as ``\\xff``). A backslash is left as is, so
escaping twice changes nothing and escapes already in a message stay readable.
"""

from __future__ import annotations

import unicodedata

__all__ = ["one_line", "encodable"]

# Control, format (zero-width, bidirectional), line and paragraph separators, and surrogates.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # a byte that was not UTF-8 (os.fsdecode's surrogateescape)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def one_line(text: str) -> str:
    """``text`` with every control, format, separator or undecodable character shown as an escape."""
    if text.isprintable() and text.isascii():
        return text  # the common case, without looking at each character
    return "".join(_escape(c) if unicodedata.category(c) in _HIDDEN else c for c in text)


def encodable(text: str) -> str:
    """``text`` writable as UTF-8: only undecodable bytes (lone surrogates) shown as escapes.

    For JSON, whose strings escape control characters themselves.
    """
    if text.isascii():
        return text
    return "".join(_escape(c) if unicodedata.category(c) == "Cs" else c for c in text)
