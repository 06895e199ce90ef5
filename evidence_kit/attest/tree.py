"""The files of a published folder: walking, hashing, safe path resolution.

Nothing here follows a symbolic link or reads a file whose listed path could
leave the folder: a path is judged by its text and by ``lstat`` of every
component before a single byte is read.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import BadInput

__all__ = [
    "SYMLINK",
    "NOT_REGULAR",
    "path_problem",
    "resolve_listed",
    "walk_tree",
    "sha256_file",
]

CHUNK = 1 << 20
SYMLINK = "symbolic link (not followed)"
NOT_REGULAR = "not a regular file"


def path_problem(listed: object) -> str | None:
    """Why a listed path may not be used, judged by its text alone; ``None`` when it is fine."""
    if not isinstance(listed, str) or not listed:
        return "path is not a non-empty string"
    if "\x00" in listed:
        return "path contains a NUL byte"
    if listed.startswith("/") or (len(listed) > 1 and listed[1] == ":") or listed.startswith("\\"):
        return "absolute path"
    if "\\" in listed:
        return "path uses '\\' (the contract uses '/')"
    parts = listed.split("/")
    if ".." in parts:
        return "path escapes the folder ('..')"
    if any(part in ("", ".") for part in parts):
        return "path has an empty or '.' component"
    return None


def resolve_listed(root: Path, listed: str) -> tuple[Path | None, str | None]:
    """``(path, None)`` for a listed path that is a regular file inside ``root``, else ``(None, why)``.

    Every component is checked with ``lstat`` from the root down, so a symlinked
    folder or file is refused before anything behind it is opened.
    """
    problem = path_problem(listed)
    if problem:
        return None, problem
    current = root
    parts = listed.split("/")
    for i, part in enumerate(parts):
        current = current / part
        try:
            info = current.lstat()
        except FileNotFoundError:
            return None, "missing"
        except OSError as err:
            return None, f"cannot stat ({err.strerror})"
        if stat.S_ISLNK(info.st_mode):
            return None, SYMLINK
        last = i == len(parts) - 1
        if not last and not stat.S_ISDIR(info.st_mode):
            return None, "missing (a parent is not a folder)"
        if last and not stat.S_ISREG(info.st_mode):
            return None, NOT_REGULAR
    return current, None


def walk_tree(root: Path) -> Iterator[tuple[str, str | None]]:
    """Every entry under ``root`` as ``(relative path, problem)``, each folder's sorted; symlinks are never followed.

    Regular files come with ``None``; symlinks and special files come with why
    they may not be published. The walk keeps its own stack, so no depth of
    folders exhausts Python's recursion limit; a folder that cannot be listed
    (no read permission, a path too long) raises :class:`BadInput` naming it,
    since files in a folder nobody could list would go unseen.
    """
    pending = [""]
    while pending:
        prefix = pending.pop()
        folder = os.path.join(root, prefix.rstrip("/")) if prefix else os.fspath(root)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
            below = []
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_symlink():
                    yield rel, SYMLINK
                elif entry.is_dir(follow_symlinks=False):
                    below.append(rel + "/")
                elif entry.is_file(follow_symlinks=False):
                    yield rel, None
                else:
                    yield rel, NOT_REGULAR
        except OSError as err:
            raise BadInput(f"cannot list this folder ({err.strerror}): files in it would go unseen", folder) from None
        pending += reversed(below)


def sha256_file(path: Path) -> tuple[str, int]:
    """sha256 (hex) and size of a file, read in 1 MiB chunks without following a final symlink."""
    digest = hashlib.sha256()
    size = 0
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb", buffering=0) as handle:
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        while True:
            n = handle.readinto(buffer)
            if not n:
                break
            digest.update(view[:n])
            size += n
    return digest.hexdigest(), size
