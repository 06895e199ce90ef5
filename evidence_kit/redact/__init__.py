"""The redactor and the leak scanner.

- :func:`redact_bundle` — raw trial or decision folder in, pseudonymised bundle out,
  with ``receipt.json`` and ``manifest.json``, checked by the leak scan.
- :func:`scan_tree` — the leak scan of any folder (raw evidence, a bundle, a built site).
- :func:`known_values_from_raw`, :func:`load_known_values` — the values to hunt for,
  from raw evidence or from a private map.
- :func:`load_policy` and :class:`Policy` — the redaction policy file.

See ``docs/redaction.md`` for the policy format, the classes, the guarantees and the limits.
"""

from .discover import known_values_from_raw
from .harvest import load_known_values
from .policy import Policy, load_policy
from .run import MARKER_NAME, RECEIPT_NAME, RedactResult, redact_bundle
from .scanner import SITE_KNOWN_ONLY, Finding, scan_tree
from .variants import KnownValue

__all__ = [
    "Finding",
    "KnownValue",
    "MARKER_NAME",
    "Policy",
    "RECEIPT_NAME",
    "RedactResult",
    "SITE_KNOWN_ONLY",
    "known_values_from_raw",
    "load_known_values",
    "load_policy",
    "redact_bundle",
    "scan_tree",
]
