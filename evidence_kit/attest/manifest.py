"""``manifest.json``: sha256 and size of every file in a folder.

Shared by the redactor (each trial bundle), the site builder (the built site),
the signer (who lists it in the statement) and the auditor (who rebuilds it
from the files on disk and compares).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..canonical import canonical_json
from ..errors import BadInput
from ..fsutil import atomic_write
from ..model import MANIFEST_SCHEMA, Manifest, ManifestEntry
from ..read import read_json_model
from .tree import SYMLINK, sha256_file, walk_tree

__all__ = [
    "MANIFEST_NAME",
    "ENVELOPE_NAME",
    "NOT_LISTED",
    "ManifestError",
    "build_manifest",
    "listed_files",
    "manifest_bytes",
    "parse_manifest",
    "read_manifest",
    "write_manifest",
]

MANIFEST_NAME = "manifest.json"
ENVELOPE_NAME = "manifest.dsse.json"
# The manifest cannot list itself, and the envelope signs the manifest (docs/contract.md).
NOT_LISTED = frozenset({MANIFEST_NAME, ENVELOPE_NAME})


class ManifestError(ValueError):
    """A manifest that cannot be used at all (not JSON, not ours, no list of entries)."""


def listed_files(folder: Path) -> list[str]:
    """Relative ``/`` paths of every file a manifest of ``folder`` lists, sorted.

    That is every regular file below ``folder`` except ``manifest.json`` and its
    ``manifest.dsse.json`` envelope at the top. A symbolic link is refused: a
    manifest must describe bytes that are really in the folder.
    """
    found: list[str] = []
    for rel, problem in walk_tree(folder):
        if problem == SYMLINK:
            raise BadInput("symbolic link inside the folder (a manifest lists regular files only)", folder / rel)
        if problem is None and rel not in NOT_LISTED:
            found.append(rel)
    return sorted(found)


def build_manifest(folder: Path) -> Manifest:
    """The manifest of ``folder`` as it is on disk now (entries sorted by path)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BadInput("not a folder", folder)
    entries = []
    for rel in listed_files(folder):
        sha256, size = sha256_file(folder / rel)
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


def read_manifest(path: Path) -> Manifest:
    """A manifest its reader relies on (the redactor, the site builder): every entry valid, or
    :class:`BadInput` naming the file and line."""
    return read_json_model(path, Manifest)


def parse_manifest(data: bytes) -> dict[str, Any]:
    """A manifest as the auditor reads it: the document's shape is checked, its entries are not,
    so that each bad entry (an escaping path, a wrong hash) is reported on its own by the check
    it concerns. Raise :class:`ManifestError` when the manifest cannot be used at all."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as err:  # nesting deeper than the parser's stack is not a manifest
        raise ManifestError(f"manifest is not readable JSON ({err})") from None
    if not isinstance(doc, dict) or doc.get("schema") != MANIFEST_SCHEMA:
        raise ManifestError(f"manifest lacks schema '{MANIFEST_SCHEMA}'")
    files = doc.get("files")
    if not isinstance(files, list) or not all(isinstance(e, dict) for e in files):
        raise ManifestError("manifest 'files' is not a list of objects")
    return doc
