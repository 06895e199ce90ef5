"""Every admonition a page writes is markup the auditor admits: the outcome box at the top of a decision
page (promote, retain, inconclusive) is one of Material's admonition types, and verify refused the class of
each until the registry took them from the outcome table."""

from __future__ import annotations

import pytest

from evidence_kit.present.outcome import OUTCOME_BOXES
from evidence_kit.render.markup import ADMONITIONS, ARTICLE_CLASS


@pytest.mark.parametrize("outcome", OUTCOME_BOXES)
def test_each_outcome_boxs_type_is_an_admitted_class(outcome: str) -> None:
    kind, _ = OUTCOME_BOXES[outcome]
    assert kind in ADMONITIONS and ARTICLE_CLASS.fullmatch(kind)


def test_a_type_no_page_writes_is_still_refused() -> None:
    assert not ARTICLE_CLASS.fullmatch("abstract") and not ARTICLE_CLASS.fullmatch("success-hidden")
