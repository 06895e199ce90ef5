"""Every verdict word the page and ``analyze`` print has one meaning, in one registry, stated in the docs."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze.report import Verdict
from evidence_kit.present.wording import VERDICT_MEANINGS, VERDICT_WORDS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "analysis.md"


def test_every_verdict_and_reason_the_analysis_can_give_has_a_word_and_a_meaning() -> None:
    reasons = Verdict.model_fields["reason"].annotation.__args__  # type: ignore[union-attr]
    for _verdict, reason in VERDICT_WORDS:
        assert reason in reasons
    assert set(VERDICT_WORDS.values()) == set(VERDICT_MEANINGS)
    assert all(m.count(". ") == 0 and m.endswith(".") for m in VERDICT_MEANINGS.values())  # one sentence each


def test_the_docs_state_each_meaning_as_the_registry_does() -> None:
    text = " ".join(DOCS.read_text().split())
    for word, meaning in VERDICT_MEANINGS.items():
        assert f"**{word}**: {meaning}" in text, word


def test_the_docs_state_what_the_smallest_resolvable_change_means_as_the_card_does() -> None:
    from evidence_kit.present.verdict_meanings import SMALLEST_CHANGE_MEANING

    text = " ".join(DOCS.read_text().split())
    assert f"**Smallest resolvable change**: {SMALLEST_CHANGE_MEANING}" in text
