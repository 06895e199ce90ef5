"""The layers of evidence-kit, bottom first: the one statement of which part may import which.

A module may import from its own part (a subpackage, or a top-level module)
and from any part of a lower layer; never from a higher layer, and never from
another part of its own layer: parts of one layer are siblings that know
nothing of each other (the site builder and the auditor, say, share the
rendering and the attestation below them and never import each other).
``tests/test_layers.py`` reads every import of every module, those inside
functions and dynamic ones named as strings included, and fails on any other
edge; ``docs/architecture.md`` explains the order and is checked against it.
"""

from __future__ import annotations

__all__ = ["LAYERS", "layer_of"]

# "__init__" is the package root (``evidence_kit/__init__.py``): the Python API's front door, at the top.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("version", "layers", "memo", "one_line", "aio", "canonical", "spreadsheet", "model", "zensical_guard", "progress"),
    ("errors",),
    ("fsutil", "read", "analyze", "examples"),
    ("present", "schemas", "attest"),
    ("text_report", "render", "collect", "engine_sim", "redact", "export", "rendered_cache"),
    ("publish", "verify", "importers"),
    ("demo", "api", "mkdocs_plugin"),
    ("commands",),
    ("cli",),
    ("__main__", "__init__"),
)


def layer_of(part: str) -> int:
    """The layer (0 is the bottom) of a part of the package; ``KeyError`` for a part no layer names."""
    for number, parts in enumerate(LAYERS):
        if part in parts:
            return number
    raise KeyError(part)
