"""An independent survivor check: plain substring search, written without the redactor's code.

It reads every file's bytes and every relative path, lower-cases them, and also
looks at the text with JSON escapes (``\\uXXXX``, ``\\/``) and URL escapes undone,
so a canary that survived behind an escape is still found.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote


def _decoded(text: str) -> list[str]:
    unescaped = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text).replace("\\/", "/")
    return [text, unescaped, unquote(text), unquote(unescaped)]


def survivors(folder: Path, canaries: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """``(relative path, canary)`` for every canary found in a file's name or content."""
    found = []
    wanted = [c.lower() for c in canaries]
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(folder).as_posix()
        content = path.read_bytes().decode("utf-8", errors="replace")
        for view in _decoded(rel) + _decoded(content):
            lowered = view.lower()
            for canary in wanted:
                if canary in lowered:
                    found.append((rel, canary))
    return sorted(set(found))
