"""The auditor: signed manifests (DSSE + in-toto) and ``verify``, which recomputes every published figure.

- :func:`sign_tree` — sign a published folder (``build --sign KEY`` calls it).
- :func:`verify_folder` / :func:`verify_url` — every check, in order, into a :class:`Report`;
  a :class:`Pin` (``load_pin`` from ``--key`` / ``--key-id``) names the publisher's key.
- :func:`generate_keypair` — an Ed25519 key pair (``evidence-kit keygen``).
"""

from .dsse import IN_TOTO_PAYLOAD_TYPE, pae, sign_envelope, verify_envelope
from .keys import generate_keypair, key_id, load_private_key, load_public_key
from .pin import Pin, load_pin
from .run import CHECKS, Report, verify_folder
from .sign import sign_tree
from .statement import PREDICATE_TYPE, STATEMENT_TYPE

__all__ = [
    "CHECKS",
    "IN_TOTO_PAYLOAD_TYPE",
    "PREDICATE_TYPE",
    "Pin",
    "Report",
    "STATEMENT_TYPE",
    "generate_keypair",
    "key_id",
    "load_pin",
    "load_private_key",
    "load_public_key",
    "pae",
    "sign_envelope",
    "sign_tree",
    "verify_envelope",
    "verify_folder",
]
