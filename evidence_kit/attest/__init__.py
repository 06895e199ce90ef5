"""What is published and signed: the manifest, tree hashing, DSSE envelopes, the in-toto Statement, keys.

Below both the site builder (which writes and signs) and the auditor (which
checks): each uses this one definition of the formats, so neither needs the other.

- :func:`build_manifest`, :func:`write_manifest`, :func:`read_manifest` — ``manifest.json``, sha256
  and size of every file of a folder.
- :func:`walk_tree`, :func:`sha256_file`, :func:`path_problem`, :func:`resolve_listed` — a folder's
  files, hashed and resolved without following a symbolic link.
- :func:`sign_tree` — sign a published folder (``build --sign KEY`` calls it).
- :func:`generate_keypair`, :func:`key_id` — Ed25519 keys (``evidence-kit keygen``).
- :func:`sign_envelope`, :func:`verify_envelope`, :func:`pae` — DSSE v1.
"""

from .dsse import IN_TOTO_PAYLOAD_TYPE, pae, sign_envelope, verify_envelope
from .keys import generate_keypair, key_id, load_private_key, load_public_key
from .manifest import ENVELOPE_NAME, MANIFEST_NAME, build_manifest, write_manifest
from .sign import sign_tree
from .statement import PREDICATE_TYPE, STATEMENT_TYPE
from .tree import path_problem, resolve_listed, sha256_file, walk_tree

__all__ = [
    "ENVELOPE_NAME",
    "IN_TOTO_PAYLOAD_TYPE",
    "MANIFEST_NAME",
    "PREDICATE_TYPE",
    "STATEMENT_TYPE",
    "build_manifest",
    "generate_keypair",
    "key_id",
    "load_private_key",
    "load_public_key",
    "pae",
    "path_problem",
    "resolve_listed",
    "sha256_file",
    "sign_envelope",
    "sign_tree",
    "verify_envelope",
    "walk_tree",
    "write_manifest",
]
