"""``manifest.json``: sha256 and size of every file in a folder.

Shared by the redactor (each trial bundle), the site builder (the built site),
the signer (who lists it in the statement) and the auditor (who rebuilds it
from the files on disk and compares).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..canonical import canonical_json
from ..errors import BadInput
from ..fsutil import atomic_write
from ..model import MANIFEST_SCHEMA, Manifest, ManifestEntry

__all__ = ["MANIFEST_NAME", "ENVELOPE_NAME", "NOT_LISTED", "build_manifest", "write_manifest", "manifest_bytes", "file_sha256", "listed_files"]

MANIFEST_NAME = "manifest.json"
ENVELOPE_NAME = "manifest.dsse.json"
# The manifest cannot list itself, and the envelope signs the manifest (spec: evidence-bundle-v1).
NOT_LISTED = frozenset({MANIFEST_NAME, ENVELOPE_NAME})
_CHUNK = 1 << 20


def file_sha256(path: Path) -> tuple[str, int]:
    """``(sha256 hex, size)`` of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def listed_files(folder: Path) -> list[str]:
    """Relative ``/`` paths of every file a manifest of ``folder`` lists, sorted.

    That is every regular file below ``folder`` except ``manifest.json`` and its
    ``manifest.dsse.json`` envelope at the top. A symbolic link is refused: a
    manifest must describe bytes that are really in the folder.
    """
    found: list[str] = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            raise BadInput("symbolic link inside the folder (a manifest lists regular files only)", path)
        if path.is_file() and rel not in (MANIFEST_NAME, ENVELOPE_NAME):
            found.append(rel)
    return sorted(found)


def build_manifest(folder: Path) -> Manifest:
    """The manifest of ``folder`` as it is on disk now (entries sorted by path)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BadInput("not a folder", folder)
    entries = []
    for rel in listed_files(folder):
        sha256, size = file_sha256(folder / rel)
        entries.append(ManifestEntry(path=rel, size=size, sha256=sha256))
    return Manifest(schema=MANIFEST_SCHEMA, files=entries)


def manifest_bytes(manifest: Manifest) -> bytes:
    """The canonical bytes of a manifest: keys in contract order (see :func:`canonical_json`)."""
    return canonical_json(manifest.model_dump(by_alias=True, mode="json"), sort_keys=False)


def write_manifest(folder: Path) -> Manifest:
    """Build the manifest of ``folder`` and write it to ``folder/manifest.json`` atomically."""
    manifest = build_manifest(folder)
    atomic_write(Path(folder) / MANIFEST_NAME, manifest_bytes(manifest))
    return manifest
