"""The redactor and the known-value scan.

- :func:`redact_bundle` — raw trial or decision folder in, a bundle written from the contract's
  typed records out (identities as pseudonyms, raw text withheld), with ``receipt.json`` and
  ``manifest.json``, checked by the known-value scan.
- :func:`scan_tree` — the known-value scan of any folder (a bundle, a built site).
- :func:`known_values_from_raw`, :func:`load_known_values` — the values to hunt for, from raw
  evidence or from a private map.
- :func:`load_policy` and :class:`Policy` — the redaction policy file.

See ``docs/redaction.md`` for the publication classes, the policy, the rules and the limits.
"""

from .hunt import KnownValue
from .known import known_values_from_raw, load_known_values
from .policy import Policy, load_policy
from .run import MARKER_NAME, RECEIPT_NAME, RedactResult, redact_bundle
from .scanner import Finding, scan_tree

__all__ = [
    "Finding",
    "KnownValue",
    "MARKER_NAME",
    "Policy",
    "RECEIPT_NAME",
    "RedactResult",
    "known_values_from_raw",
    "load_known_values",
    "load_policy",
    "redact_bundle",
    "scan_tree",
]
