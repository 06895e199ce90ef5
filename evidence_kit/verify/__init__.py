"""The auditor: ``verify`` checks a signed or unsigned folder and recomputes every published figure.

- :func:`verify_folder` (and :func:`.fetch.verify_url` for a served site) — every check, in order, into a :class:`Report`;
  a :class:`Pin` (``load_pin`` from ``--key`` / ``--key-id``) names the publisher's key.

The formats it checks (manifest, DSSE, the in-toto Statement, keys) and the signing
side live in :mod:`evidence_kit.attest`.
"""

from .pin import Pin, load_pin
from .run import CHECKS, Report, verify_folder

__all__ = [
    "CHECKS",
    "Pin",
    "Report",
    "load_pin",
    "verify_folder",
]
