"""Sign a published folder: public key, manifest, in-toto Statement, DSSE envelope.

``build --sign KEY`` calls :func:`sign_tree` as its last step. The result is
deterministic: the same folder and key give the same bytes (Ed25519 signatures
are deterministic).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..canonical import canonical_json
from ..errors import BadInput
from ..fsutil import atomic_write
from .dsse import IN_TOTO_PAYLOAD_TYPE, sign_envelope
from .keys import PUBLIC_KEY_NAME, load_private_key, public_key_pem
from .manifest import ENVELOPE_NAME, MANIFEST_NAME, write_manifest
from .statement import folder_predicate, statement_bytes
from .tree import sha256_file

__all__ = ["sign_tree"]


def sign_tree(folder: Path, key_path: Path, predicate: dict[str, Any] | None = None) -> Path:
    """Sign every file of ``folder``; return the path of the envelope (``manifest.dsse.json``).

    Steps, in order: write the public key as ``signing.pub`` (so the folder names
    the key that signed it; an auditor should still pin it with ``--key``),
    rewrite ``manifest.json`` over the whole folder (it then lists the key too),
    build the Statement whose subjects are every listed file and the manifest
    itself, and write the DSSE envelope beside the manifest. ``predicate``
    entries are added to (and may not replace) the ones derived from the folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise BadInput("not a folder", folder)
    key = load_private_key(Path(key_path))
    atomic_write(folder / PUBLIC_KEY_NAME, public_key_pem(key.public_key()))
    manifest = write_manifest(folder)
    subjects = [(entry.path, entry.sha256) for entry in manifest.files]
    subjects.append((MANIFEST_NAME, sha256_file(folder / MANIFEST_NAME)[0]))
    derived = folder_predicate(folder)
    extra = dict(predicate or {})
    clash = sorted(set(extra) & set(derived))
    if clash:
        raise ValueError(f"predicate fields {clash} are derived from the folder and cannot be given")
    payload = statement_bytes(subjects, {**derived, **extra})
    envelope = sign_envelope(payload, IN_TOTO_PAYLOAD_TYPE, key)
    target = folder / ENVELOPE_NAME
    atomic_write(target, canonical_json(envelope))
    return target
