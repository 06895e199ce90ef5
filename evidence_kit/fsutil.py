"""Small filesystem helpers: writes that leave nothing half-written, reads that stop at a bound."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import BadInput

__all__ = ["atomic_write", "read_bounded", "write_files_atomically"]


def read_bounded(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path``, or ``None`` when it holds more than ``limit``: never more than ``limit + 1`` are
    read, so a device or a pipe without end (``/dev/zero``) or a file of gigabytes cannot hold the reader."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    return None if len(data) > limit else data


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, fsynced; ``mode`` sets its
    permissions (the temporary file is created 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_files_atomically(folder: Path, files: dict[str, bytes]) -> None:
    """Write several files into ``folder``, each atomically."""
    if folder.exists() and not folder.is_dir():
        raise BadInput("exists and is not a folder", folder)
    for name, data in files.items():
        atomic_write(folder / name, data)
