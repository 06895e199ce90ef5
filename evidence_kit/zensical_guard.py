"""A Markdown extension that fails a build the evidence-kit MkDocs plugin is not part of (Zensical).

Zensical, Material for MkDocs' successor, reads ``mkdocs.yml`` but runs no MkDocs plugin: it drops the
``evidence-kit`` entry of ``plugins`` without a word and publishes the site without its decisions. It
does run the Python-Markdown extensions the file lists. A host that lists this one beside the plugin,

    markdown_extensions:
      - evidence_kit.zensical_guard

gets a build that fails, its last line this module's message, under Zensical (or any other builder
that runs Python-Markdown but not MkDocs), and no change under MkDocs: MkDocs loads each extension
while it validates ``mkdocs.yml``, before any plugin runs, so the guard passes wherever MkDocs is the
builder (``mkdocs.plugins`` is imported), and the plugin marks itself active too. Imports nothing of
evidence-kit but this, so a Zensical environment needs no more of it to fail loudly.
"""

from __future__ import annotations

import sys
from typing import Any

from markdown import Extension, Markdown

__all__ = ["GuardExtension", "makeExtension", "mark_active", "MESSAGE"]

MESSAGE = (
    "evidence-kit: the decision pages need the evidence-kit MkDocs plugin, and this build runs none "
    "(Zensical runs no MkDocs plugin; it would publish the site without its decisions): build the host "
    "with `mkdocs build`, or publish the decisions on their own with `evidence-kit build`"
)
_ACTIVE = {"plugin": False}


def mark_active() -> None:
    """Called by the MkDocs plugin's ``on_config``: this build renders the decisions."""
    _ACTIVE["plugin"] = True


class GuardExtension(Extension):  # type: ignore[misc]  # markdown ships no types
    """Refuses to extend a Markdown instance outside MkDocs (where the evidence-kit plugin can run)."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        if not (_ACTIVE["plugin"] or "mkdocs.plugins" in sys.modules):
            raise RuntimeError(MESSAGE)


def makeExtension(**kwargs: Any) -> GuardExtension:  # noqa: N802 (Python-Markdown's entry point)
    return GuardExtension(**kwargs)
