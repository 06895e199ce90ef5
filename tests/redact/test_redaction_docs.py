"""docs/redaction.md's reference tables are what the rule and format registries generate."""

from __future__ import annotations

from evidence_kit.redact.reference import BEGIN, END, reference_markdown

from ..conftest import REPO

REGENERATE = ".venv/bin/python -m evidence_kit.redact.reference docs/redaction.md"


def test_the_rule_reference_is_generated_from_the_registries() -> None:
    page = (REPO / "docs" / "redaction.md").read_text()
    generated = page[page.index(BEGIN) + len(BEGIN) : page.index(END)].strip()
    assert generated == reference_markdown().strip(), f"docs/redaction.md's rule reference is stale: run `{REGENERATE}`"


def test_every_rule_and_reader_is_named_on_the_page() -> None:
    from evidence_kit.redact.formats import READERS
    from evidence_kit.redact.rules import RULES

    page = (REPO / "docs" / "redaction.md").read_text()
    assert all(f"`{rule.name}`" in page for rule in RULES)
    assert all(f"`{reader.name}`" in page for reader in READERS)


def test_contract_md_lists_every_field_that_is_not_public() -> None:
    from evidence_kit.redact.reference import CLASSES_BEGIN, CLASSES_END, classes_markdown

    page = (REPO / "docs" / "contract.md").read_text()
    generated = page[page.index(CLASSES_BEGIN) + len(CLASSES_BEGIN) : page.index(CLASSES_END)].strip()
    assert generated == classes_markdown().strip(), f"docs/contract.md's publication classes are stale: run `{REGENERATE} docs/contract.md`"
