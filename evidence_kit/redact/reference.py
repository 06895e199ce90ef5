"""The reference tables of ``docs/redaction.md``, generated from the registries.

``python -m evidence_kit.redact.reference docs/redaction.md docs/contract.md`` rewrites the parts of the pages
between their ``begin`` and ``end`` markers (the rule reference; the publication classes; the contract's
layout); ``tests/redact/test_redaction_docs.py``
fails when the page differs from what the registries generate.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from ..model.failures import FAILURE, FINISH
from ..model.layout import layout_markdown
from .formats import READERS
from .rules import rules_of

__all__ = ["BEGIN", "CLASSES_BEGIN", "CLASSES_END", "END", "LAYOUT_BEGIN", "LAYOUT_END", "classes_markdown", "reference_markdown", "rewrite"]

BEGIN = "<!-- reference:begin (generated from evidence_kit/redact/rules and redact/formats: do not edit) -->"
END = "<!-- reference:end -->"
CLASSES_BEGIN = "<!-- classes:begin (generated from the models' publication classes: do not edit) -->"
CLASSES_END = "<!-- classes:end -->"
LAYOUT_BEGIN = "<!-- layout:begin (generated from evidence_kit/model/layout.py: do not edit) -->"
LAYOUT_END = "<!-- layout:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def reference_markdown() -> str:
    """The generated part of the page."""
    out: list[str] = ["### Format readers", ""]
    if READERS:
        out += _table(("reader", "reads", "published as"), [(f"`{r.name}`", r.summary, f"`<name>.{r.name}.json`") for r in READERS])
    else:
        out.append("No format reader is registered yet: every file that is not a contract file is withheld.")
    out += ["", "### Codes", ""]
    out += _table(
        ("vocabulary", "what it publishes", "words"), [(f"`{v.name}`", v.summary, ", ".join(f"`{w}`" for w in v.words)) for v in (FAILURE, FINISH)]
    )
    out += ["", "### Spelling rules", ""]
    out += _table(
        ("rule", "kinds", "finds and teaches"),
        [(f"`{r.name}`", ", ".join(f"`{k.value}`" for k in r.kinds) or "every kind", r.finds) for r in rules_of("spelling")],
    )
    out += ["", "### Reading rules", ""]
    out += _table(("rule", "reads"), [(f"`{r.name}`", r.finds) for r in rules_of("reading")])
    out += ["", "### Guard rules: never learnt as private", ""]
    out += _table(("rule", "refuses"), [(f"`{r.name}`", r.finds) for r in rules_of("guard")])
    return "\n".join(out) + "\n"


def classes_markdown() -> str:
    """Every field of the records a bundle publishes that is not published as it is, by record."""
    from ..model import Check, Decision, Footer, Gate, Header, Manifest, Receipt, Request, Run, TelemetrySample, Trial
    from ..model.publication import Publication, classed_fields

    roots: tuple[type[BaseModel], ...] = (
        Trial,
        Header,
        Request,
        Run,
        Gate,
        Check,
        Footer,
        TelemetrySample,
        Decision,
        Receipt,
        Manifest,
        *(r.record for r in READERS),
    )
    rows = [
        (f"`{f.model.__name__}`", f"`{f.name}`", f"`{f.classed}`")
        for f in classed_fields(*roots)
        if f.classed is not None and f.classed.publication is not Publication.PUBLIC
    ]
    return "\n".join(_table(("record", "field", "class"), rows)) + "\n"


def _replace(text: str, begin: str, end: str, body: str) -> str:
    if begin not in text:
        return text
    start, stop = text.index(begin) + len(begin), text.index(end)
    return text[:start] + "\n\n" + body + "\n" + text[stop:]


def rewrite(page: Path) -> bool:
    """Rewrite the generated parts of ``page`` (either page's); whether it changed."""
    text = page.read_text(encoding="utf-8")
    new = _replace(_replace(text, BEGIN, END, reference_markdown()), CLASSES_BEGIN, CLASSES_END, classes_markdown())
    new = _replace(new, LAYOUT_BEGIN, LAYOUT_END, layout_markdown())
    if new != text:
        page.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":  # pragma: no cover
    for name in sys.argv[1:]:
        rewrite(Path(name))
