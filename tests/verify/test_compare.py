"""The comparison helpers of the figures check, on small hand-made inputs."""

from __future__ import annotations

from evidence_kit.verify.compare import external_urls, json_mismatches, page_tokens, search_mismatches


def test_a_number_published_for_a_boolean_is_a_mismatch() -> None:
    assert list(json_mismatches({"resolvable": 1}, {"resolvable": True})) == [("resolvable", "1", "true")]
    assert list(json_mismatches({"resolvable": True}, {"resolvable": 1})) == [("resolvable", "true", "1")]
    assert list(json_mismatches({"n": 3.0}, {"n": 3})) == []  # the same number, written either way


def test_alt_text_and_active_content_are_tokens() -> None:
    plain = page_tokens('<article><p>x 1.5</p><img alt="p50 1.5 s" src="a.svg"></article>')
    assert plain == ["x", "1.5", "p50", "1.5", "s"]
    hidden = page_tokens('<article><p>x <span style="display:none">1.5</span> 2.0</p></article>')
    assert "<span style>" in hidden
    assert "<script>" in page_tokens("<article><script>document.title=1</script></article>")


def test_external_urls() -> None:
    html = '<a href="a.html">a</a><link href="//cdn.example/x.css"><img src="https://e.example/p.png"><a href="#x">'
    assert external_urls(html) == ["//cdn.example/x.css", "https://e.example/p.png"]


def test_search_entries_must_be_made_of_their_page() -> None:
    pages = {"index.html": "<article><h1>Decisions</h1><p>12/12 timed requests</p></article>"}
    good = {"docs": [{"location": "index.html", "title": "Decisions", "text": "<p>12/12 timed requests</p>"}]}
    assert list(search_mismatches(good, pages)) == []
    bad = {"docs": [{"location": "index.html#x", "title": "Decisions", "text": "<p>13/12 timed requests</p>"},
                    {"location": "gone.html", "title": "Gone", "text": ""}]}
    found = list(search_mismatches(bad, pages))
    assert ("entries for index.html", "13", "(not on the page)") in found
    assert ("entry for gone.html", "an entry", "(no such page)") in found
