"""Lines of a raw file, made safe to match: bounded, without colour codes, unwrapped from docker's JSON.

Readers take an iterable of lines, so a file of any size is read in bounded memory; ``lines_of``
reads a file that way, cutting a line past ``MAX_LINE`` characters (a log of one 200 MB line is
read as its first ``MAX_LINE`` characters, the rest skipped unread). ``clean`` takes one line
as a reader sees it: without its line ending, ANSI colour and cursor codes, or the JSON of a
docker ``json-file`` log around it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

__all__ = ["MAX_LINE", "HEAD_BYTES", "clean", "cleaned", "head_of", "lines_of"]

MAX_LINE = 65_536  # characters of one line a reader looks at
HEAD_BYTES = 65_536  # what recognition sees of a file

# CSI (colour, cursor), OSC (title, hyperlink) and the two-character escapes.
_ANSI = re.compile(r"\x1b(?:\[[0-9;:?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_DOCKER = re.compile(r'^\{\s*"log"\s*:\s*"')


def _unwrap_docker(line: str) -> str:
    """The ``log`` member of a docker json-file line, or the line as it is."""
    if not _DOCKER.match(line):
        return line
    try:
        record = json.loads(line)
    except ValueError:
        return line
    text = record.get("log") if isinstance(record, dict) else None
    return text if isinstance(text, str) else line


def clean(line: str) -> str:
    """One line without its ending, colour codes, a carriage-return overwrite or docker's JSON around it."""
    line = _unwrap_docker(line[:MAX_LINE].rstrip("\r\n"))
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "\r" in line:  # a progress bar redrawn in place: what shows last is what follows the last \r
        line = line.rstrip("\r").rsplit("\r", 1)[-1]
    return line.rstrip("\r\n")


def cleaned(lines: Iterable[str]) -> Iterator[str]:
    """Every line of ``lines``, cleaned."""
    for line in lines:
        yield clean(line)


def _decode(piece: bytes, cut: bool) -> str:
    """UTF-8, strictly; a line cut at MAX_LINE may end in half a character, which is dropped."""
    try:
        return piece.decode("utf-8")
    except UnicodeDecodeError as err:
        if not (cut and err.reason == "unexpected end of data"):
            raise
        return piece[: err.start].decode("utf-8")


def _bounded(stream: IO[bytes]) -> Iterator[str]:
    while True:
        line = stream.readline(MAX_LINE)
        if not line:
            return
        cut = not line.endswith(b"\n")
        yield _decode(line, cut)
        if cut:  # cut short at MAX_LINE: skip the rest of this line unread
            while (rest := stream.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                pass


def lines_of(path: Path) -> Iterator[str]:
    """The lines of a file (split at ``\\n`` only), each at most ``MAX_LINE`` bytes, read in bounded memory.

    Bytes that are not UTF-8 raise ``UnicodeDecodeError`` where they are met, as reading the file as
    text would: a file that is text at first and bytes further on is the caller's to withhold."""
    with path.open("rb") as stream:
        yield from _bounded(stream)


def head_of(path: Path) -> str:
    """The first ``HEAD_BYTES`` of a file, as text (a character cut in half at the end is dropped)."""
    with path.open("rb") as stream:
        return stream.read(HEAD_BYTES).decode("utf-8", "ignore")
