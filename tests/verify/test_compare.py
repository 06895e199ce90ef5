"""The comparison helpers of the figures check, on small hand-made inputs."""

from __future__ import annotations

import json

from evidence_kit.verify.compare import json_mismatches
from evidence_kit.verify.page_text import (
    external_urls,
    page_mismatches,
    page_tokens,
    read_page,
    search_mismatches,
    spec_mismatches,
    title_mismatches,
)

EXPECTED = "<h1>Cache layout</h1><p>The candidate is 1.7% faster.</p><table><tr><td>2K / 4</td><td>1.735</td></tr></table>"


def _published(article: str, chrome: str = "") -> str:
    return f"<html><head><title>Cache layout - site</title></head><body><nav>{chrome}</nav><article>{article}</article></body></html>"


def _differences(article: str) -> list[tuple[str, str, str]]:
    return page_mismatches(read_page(_published(article)), read_page(EXPECTED))


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


def test_the_same_text_in_other_markup_matches() -> None:
    """Another renderer's markup (wrappers, attributes, whitespace) shows the same text: no difference."""
    other = (
        '<div class="md-typeset__table"><h1 id="x">Cache layout</h1>\n<p>The candidate is\n 1.7% faster.</p>'
        '<table class="t"><tbody><tr><td>2K / 4</td> <td><span>1.735</span></td></tr></tbody></table></div>'
    )
    assert _differences(other) == []
    # Words between blocks are words a reader reads (the rebuild that once allowed a theme's can be skipped).
    assert _differences(EXPECTED + "<p>Back to top</p>") == [("after 'is 1.7% faster 2K 4 1.735'", "Back to top", "(absent)")]


def test_a_changed_figure_is_named() -> None:
    assert _differences(EXPECTED.replace("1.735", "1.705")) == [("after 'candidate is 1.7% faster 2K 4'", "1.705", "1.735")]


def test_a_word_inside_a_verdict_is_a_difference() -> None:
    found = _differences(EXPECTED.replace("is 1.7%", "is not 1.7%"))
    assert found and found[0][1] == "not"


def test_added_figures_active_content_and_reordering_are_differences() -> None:
    assert _differences(EXPECTED + "<p>Adopted: 40% faster.</p>")  # a figure the page does not show
    assert _differences(EXPECTED + "<script>document.title = 'x'</script>")
    assert _differences(EXPECTED.replace("<td>1.735</td>", "<td><span hidden>1.735</span></td>"))
    swapped = "<p>The candidate is 1.7% faster.</p><h1>Cache layout</h1><table><tr><td>2K / 4</td><td>1.735</td></tr></table>"
    assert _differences(swapped)


def test_punctuation_of_a_block_counts() -> None:
    """Tokens skip punctuation; a block must still appear whole, as written."""
    found = _differences(EXPECTED.replace("2K / 4", "2K , 4"))
    assert found == [("text '2K / 4 1.735'", "2K , 4 1.735", "this text, whole and in this order")]


def test_title_and_chart_data() -> None:
    page = read_page(_published(EXPECTED))
    assert title_mismatches(page, "Cache layout", {"1"}) == []
    assert title_mismatches(read_page(_published(EXPECTED).replace("<title>", "<title>40% faster ")), "Cache layout", set())
    spec = '{"datasets": {"per-run-0": [{"e2e_p50_s": 1.5}]}, "mark": "point"}'
    restyled = '{"datasets": {"per-run-0": [{"e2e_p50_s": 1.5}]}, "mark": "circle", "config": {}}'
    # No part of a spec is the chart library's to vary: a mark drawn otherwise, a config added, are named.
    assert spec_mismatches([restyled], [spec]) == [("chart 1 spec config", "{}", "(absent)"), ("chart 1 spec mark", "circle", "point")]
    assert spec_mismatches([spec.replace(", ", ",")], [spec]) == [("chart 1 spec", "65 characters, not the derived text", "66 characters")]
    assert spec_mismatches([spec.replace("1.5", "9.9")], [spec]) == [("chart 1 spec datasets.per-run-0[0].e2e_p50_s", "9.9", "1.5")]


def test_a_chart_s_colours_are_what_it_says() -> None:
    """Which verdict a point's colour shows is the spec's explicit scale: a swap is named where it is, and a scale
    moved elsewhere in the spec is a difference too (every part of the spec is the derived one)."""
    colour = {"field": "verdict", "scale": {"domain": ["win", "regression"], "range": ["#009E73", "#D55E00"]}}
    spec = json.dumps(
        {"datasets": {"intervals-0": [{"verdict": "win", "scale": 1}]}, "layer": [{"encoding": {"color": colour}}, {"encoding": {"color": colour}}]}
    )
    hoisted = json.dumps(
        {"datasets": {"intervals-0": [{"verdict": "win", "scale": 1}]}, "encoding": {"color": colour}, "layer": [{"mark": "rule"}, {"mark": "point"}]}
    )
    assert [figure for figure, _, _ in spec_mismatches([hoisted], [spec])] == [
        "chart 1 spec encoding",
        "chart 1 spec layer[0].encoding",
        "chart 1 spec layer[0].mark",
        "chart 1 spec layer[1].encoding",
        "chart 1 spec layer[1].mark",
    ]
    swapped = spec.replace("#009E73", "#TMP").replace("#D55E00", "#009E73").replace("#TMP", "#D55E00")
    assert spec_mismatches([swapped], [spec]) == [
        (f"chart 1 spec layer[{i}].encoding.color.scale.range[{j}]", shown, want)
        for i in (0, 1)
        for j, shown, want in ((0, "#D55E00", "#009E73"), (1, "#009E73", "#D55E00"))
    ]


def test_external_urls() -> None:
    html = '<a href="a.html">a</a><link href="//cdn.example/x.css"><img src="https://e.example/p.png"><a href="#x">'
    assert external_urls(read_page(html)) == ["//cdn.example/x.css", "https://e.example/p.png"]


def test_search_entries_must_be_made_of_their_page() -> None:
    pages = {"index.html": read_page("<article><h1>Decisions</h1><p>12/12 timed requests</p></article>")}
    good = {"docs": [{"location": "index.html", "title": "Decisions", "text": "<p>12/12 timed requests</p>"}]}
    assert list(search_mismatches(good, pages)) == []
    bad = {
        "docs": [
            {"location": "index.html#x", "title": "Decisions", "text": "<p>13/12 timed requests</p>"},
            {"location": "gone.html", "title": "Gone", "text": ""},
        ]
    }
    found = list(search_mismatches(bad, pages))
    assert ("entries for index.html", "13", "(not on the page)") in found
    assert ("entry for gone.html", "an entry", "(no such page)") in found
