"""A page is read (html5lib) once per text in a process: the same text gives the same frozen answer, another
text is read anew, and nobody can change the answer another check will be given."""

from __future__ import annotations

import dataclasses
import gc
import tracemalloc

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


def _kept_bytes(texts: list[str]) -> int:
    """The memory the page memo still holds once ``texts`` are read (every answer dropped by its caller)."""
    gc.collect()
    tracemalloc.start()
    try:
        for text in texts:
            read_page(text)
        gc.collect()
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "texts",
    [
        pytest.param([f"<p>{i}</p>" for i in range(20_000)], id="many small pages (a search index's entries are read too)"),
        pytest.param(["<p>a b</p>" * 20_000], id="one page of many small blocks"),
    ],
)
def test_the_pages_kept_hold_no_more_memory_than_the_budget(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The budget counted a page's characters only, yet a read page holds ~1.4 kB of containers however short
    # its text, and ~13 bytes per character of a page of small blocks: a hostile search_index.json of a
    # million short entries made one verify keep gigabytes, long after it returned.
    budget = 1_000_000
    monkeypatch.setattr(page_text, "_READ", type(page_text._READ)(budget, page_text._READ._weigh))
    assert _kept_bytes(texts) <= 2 * budget


SHARED = (
    '<html><head><title>T 1</title></head><body><nav>Nav 2</nav><div class="md-content">'
    '<article class="md-content__inner"><p class="x">Kept: 1.2 % faster</p>'
    '<a href="https://example.com/">l</a><div class="vega-chart" data-vl-spec="{}"></div></article></div></body></html>'
)


CHANGES = {
    **{
        name: (lambda n: lambda page: getattr(page, n).append(("x", "y", "z")))(name)
        for name in ("segments", "specs", "urls", "article_urls", "pointers", "chrome", "place")
    },
    "markup": lambda page: page.markup.add((True, "script", "")),
    "classes": lambda page: page.classes.add("hidden"),
    "place's attributes": lambda page: page.place[0][1].append(("hidden", None)),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_no_caller_can_change_the_read_another_check_is_given(change) -> None:  # type: ignore[no-untyped-def]
    # read_page shares one answer per text in the process (a later verify of the same page is given it): a
    # check that changed its lists or sets would change what every later check of that text sees.
    page = read_page(SHARED)
    fresh = page_text._read_page(SHARED)
    assert page.place and page.specs and page.pointers and page.chrome and page.markup and page.classes
    with pytest.raises((AttributeError, TypeError)):
        change(page)
    assert read_page(SHARED) == fresh
