"""A page is read (html5lib) once per text in a process: the same text gives the same frozen answer, another
text is read anew, and nobody can change the answer another check will be given."""

from __future__ import annotations

import dataclasses

import pytest

from evidence_kit.verify import page_text
from evidence_kit.verify.page_text import read_page


def test_the_same_page_is_read_once_and_another_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = []
    parse = page_text._read_page
    monkeypatch.setattr(page_text, "_read_page", lambda html: (reads.append(html), parse(html))[1])
    one = "<html><body><article><p>Kept: 1.2 % faster</p></article></body></html>"
    other = one.replace("1.2", "1.3")
    assert read_page(one) is read_page(one)
    assert read_page(other).blocks == ["Kept: 1.3 % faster"]
    assert reads.count(one) <= 1 and reads.count(other) == 1


def test_the_answer_cannot_be_reassigned() -> None:
    page = read_page("<article><p>x</p></article>")
    with pytest.raises(dataclasses.FrozenInstanceError):
        page.title = "another"  # type: ignore[misc]
