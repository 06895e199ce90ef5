"""Differential tests: every shortcut of the redactor gives exactly what the slow path gives.

The shortcuts are the cheap tests that skip a detector or the label pattern on a
line that cannot hold a hit, the literals of a JSON line found by splitting at
quotes, and the decoders skipped when a text lacks their marker. The slow paths
are rebuilt here from the public patterns (every detector regex on every text), and
hypothesis compares both on random text with planted values, including the
letters re's IGNORECASE folds differently from ``str.lower`` (Kelvin sign, long s,
dotted and dotless i).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evidence_kit.redact.detectors import _LABEL_TEXT, DETECTORS, LABELS, Detectors, find, find_labelled, is_public, label_class
from evidence_kit.redact.matcher import Matcher
from evidence_kit.redact.scanner import _line_hits
from evidence_kit.redact.variants import KnownValue
from evidence_kit.redact.views import View, views
from evidence_kit.redact.walkers import _LITERAL as PATTERN_LITERAL
from evidence_kit.redact.walkers import labelled_pairs, plain_literals

PLANTED = (
    "GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e",
    "MIG-GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e/1/0",
    "123e4567-e89b-12d3-a456-426614174000",
    "02:42:ac:11:00:03",
    "02-42-ac-11-00-03",
    "10.20.30.40",
    "fe80::1c2d:3e4f:5a6b:7c8d",
    "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
    "12::30",
    "/home/jdoe/models/x",
    "/data7/ckpt/run-1",
    "/var/lib/docker/overlay2",
    "~/secrets/key",
    "$HOME/.cache",
    "C:\\Users\\jdoe\\x",
    "\\\\fileserver\\share\\x",
    "http://gpu-node-17.lab.acme-corp.internal:8123/v1",
    "s3://bucket/key).",
    "jdoe@acme-corp.com",
    "gpu-node-17.lab.acme-corp.internal",
    "node7.CORP",
    "box.co.\u212a",
    "x.\u017fe",
    "a.\u0131o",
    "Bearer abcdefgh12345",
    "sk-abcdefghijklmnop1234",
    "hf_QzXwVbNmLkJhGfDsAqWe",
    "ghp_" + "a1" * 11,
    "AKIAABCDEFGHIJKLMNOP",
    "xoxb-1234567890-abc",
    "eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM",
    "3f9c2a7d4e1b8c6a0f5d",
    "deadbeef",
    "1.234567e+16",
    "c0ffee5",
    "Serial Number : 1652020012345",
    "hostname=box7",
    "\u017ferial: X9Y8Z7",
    "Serial Number .......... : ABC123",
    'api_key: "k3y"',
    "IMAGE=vllm/vllm-openai:latest",
    "localhost",
    "127.0.0.1",
    "0.11.1",
    "engine.py:102]",
    "tokens/s",
    "45.6%",
    "%2Fhome%2Fjdoe",
    "&#47;home&#47;jdoe",
)
ALPHABET = st.sampled_from(list("abcdefxyzABCDEFKS0123456789 .:-/\\~_@%=\"'()[]{}\t\u212a\u017f\u0131\u0130\u00e9"))
texts = st.lists(st.one_of(st.text(ALPHABET, max_size=12), st.sampled_from(PLANTED)), max_size=8).map("".join)


class _EveryDetector:
    """The slow path: every detector's regex on every text, no cheap test first."""

    def __init__(self) -> None:
        self.enabled = [(rank, cls, re.compile(pattern)) for rank, (cls, pattern) in enumerate(DETECTORS)]

    def finditer(self, text: str) -> Iterator[tuple[int, int, int, str]]:
        for rank, cls, pattern in self.enabled:
            for match in pattern.finditer(text):
                yield match.start(), match.end(), rank, cls


def _every_label(text: str) -> list[tuple[int, int, str]]:
    """The slow path of :func:`find_labelled`: every label, flag and key-member pattern on every text, in its order."""
    from evidence_kit.redact import detectors as d

    def secret(value: str) -> bool:
        return len(value) >= 3 and not is_public(value) and not (value.isdigit() and len(value) < 6) and not d._PLACEHOLDER.fullmatch(value)

    found = []
    for m in _LABEL_TEXT.finditer(text):
        group = next(g for g in (2, 3, 4) if m.group(g) is not None)
        if secret(m.group(group)):
            found.append((m.start(group), m.end(group), label_class(m.group(1))))
    found += [(m.start(1), m.end(1), "token") for pattern in (d._JWK_TEXT, d._JWK_FIELD, d._JWK_FLAT) for m in pattern.finditer(text)]
    found += [(m.start(2), m.end(2), "token") for m in d._XML_KEY.finditer(text)]
    found += [(m.start(), m.end(), "token") for m in d._BASE64_JSON.finditer(text) if d._jwk_inside(m.group())]
    return found + [(m.start(2), m.end(2), "token") for m in d._FLAG_TEXT.finditer(text) if secret(m.group(2))]


FAST, SLOW = Detectors(), _EveryDetector()


@settings(max_examples=1500, deadline=None)
@given(texts)
@example("D:GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e")  # a .NET key parameter's name, hypothesis found
@example("| d | WltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHk |")
@example('<input name="d" value="WltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHk">')
@example("jwk.d=WltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHk <P>WltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHk</P>")
def test_detector_hints_skip_nothing(text: str) -> None:
    assert list(find(FAST, text)) == list(find(SLOW, text))  # type: ignore[arg-type]
    assert list(find_labelled(text)) == _every_label(text)


@pytest.mark.parametrize("text", PLANTED)
def test_every_planted_value_agrees(text: str) -> None:
    for line in (text, f"x {text} y", f"[{text}]", text.upper()):
        assert list(find(FAST, line)) == list(find(SLOW, line))  # type: ignore[arg-type]
        assert list(find_labelled(line)) == _every_label(line)


def test_label_hints_cover_every_label() -> None:
    from evidence_kit.redact.detectors import _LABEL_HINTS

    assert set(_LABEL_HINTS) == set(LABELS)
    for label in LABELS:
        assert [h[2] for h in find_labelled(f"{label.upper()}: secretvalue9")] == [LABELS[label]]
    # Letters re's IGNORECASE folds but str.lower does not: found, and no KeyError (was a crash).
    assert [h[2] for h in find_labelled("\u017ferial: X9Y8Z7")] == ["serial"]
    assert [h[2] for h in find_labelled("api_\u212aey=abc123")] == ["token"]
    assert [h[2] for h in find_labelled("\u0130MAGE: registry.example.org/x")] == ["image"]


HOSTS = ("alpha-node-1.lab.acme-corp.internal", "beta-node-22.dc.acme-corp.internal", "gamma-7.corp")
IPS = ("10.1.2.3", "10.1.2.33", "192.168.7.9")


# -- string literals found by splitting at quotes --------------------------------------------------

json_ish = st.lists(
    st.one_of(st.sampled_from(['"', "\\", "\n", "\r", '\\"', '": "', '{"a": "', '"}']), st.text(ALPHABET, max_size=6)), max_size=12
).map("".join)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(json_ish, st.builds(json.dumps, st.dictionaries(st.text(max_size=5), st.text(max_size=5)))))
def test_split_literals_are_the_pattern_literals(text: str) -> None:
    plain = plain_literals(text)
    if plain is not None:
        assert plain == [raw[1:-1] for raw in PATTERN_LITERAL.findall(text)]
    if "\\" not in text and "\n" not in text:
        assert plain is not None  # the shortcut is taken wherever it is exact


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["k", "host", "msg"]), st.one_of(st.integers(), st.sampled_from(HOSTS + IPS + PLANTED), st.text(max_size=8)), max_size=4
        ),
        min_size=1,
        max_size=6,
    )
)
def test_clean_line_shortcut_keeps_every_hit(records: list[dict[str, object]]) -> None:
    """A line is passed over only when each of its literals was found clean: same hits as literal by literal."""
    matcher = Matcher([KnownValue("host", HOSTS[0])])
    lines = [json.dumps(record) + "\n" for record in records]
    for line in lines + lines:  # the second time round, clean literals are remembered
        expected = [h for raw in PATTERN_LITERAL.findall(line) for h in matcher.leaks(json.loads(raw))]
        expected += [h for pair in labelled_pairs(line) for h in matcher.leaks(pair)]
        assert _line_hits(matcher, line, True, True) == expected


def _every_view(text: str) -> list[str]:
    """The slow path of :func:`views`: every decoder on every text, to the same depth."""
    from evidence_kit.redact import views as module

    def every(view: View) -> list[View | None]:
        return [
            module._substitute(view, module._BACKSLASH, module._unbackslash),
            module._substitute(view, module._PERCENT, module._unpercent),
            module._substitute(view, module._ENTITY, module._unentity),
            module._substitute(view, module._ADDRESS, module._unpad),
            module._normalised(view),
            module._without_marks(view),
            module._git_describe(view),
        ]

    seen, found, frontier = {text}, [], [module._identity(text)]
    for _ in range(module.DEPTH):
        following = []
        for view in frontier:
            for decoded in every(view):
                if decoded is not None and decoded.text not in seen:
                    seen.add(decoded.text)
                    found.append(decoded.text)
                    following.append(decoded)
        frontier = following
    return found


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(ALPHABET, max_size=6),
            st.sampled_from(
                [
                    "%",
                    "%2F",
                    "%2f",
                    "%zz",
                    "%e9",
                    "%C3%A9",
                    "%ff",
                    "%4",
                    "&amp;",
                    "\\u0041",
                    "\\/",
                    "\\U0000002D",
                    "\\x2d",
                    "\\ ",
                    "\u200b",
                    "\u00ad",
                    "\uff47",
                    "010.020.030.040",
                    "0x0a.0x14.1.2",
                    "1.2.3.4",
                    "09.1",
                    "e\u0301",
                    "\u0332",
                    "-g3f9c2a7",
                    "+g3f9c2a7d",
                ]
            ),
        ),
        max_size=10,
    ).map("".join)
)
def test_views_skip_no_decoding(text: str) -> None:
    assert [view.text for view in views(text)] == _every_view(text)


@settings(max_examples=800, deadline=None)
@given(
    st.lists(
        st.one_of(st.text(ALPHABET, max_size=6), st.sampled_from(["%2F", "%C3%A9", "&amp;", "&#45;", "\\u002d", "\\/", "\\ ", "\u200b", "\uff47"])),
        max_size=10,
    ).map("".join)
)
def test_each_view_character_maps_back_to_where_it_came_from(text: str) -> None:
    """Decoding a view's span of the original again gives the view's characters (no span is off by one)."""
    for view in views(text):
        assert len(view.lo) == len(view.hi) == len(view.text)
        for index in range(len(view.text)):
            start, end = view.span(index, index + 1)
            assert 0 <= start < end <= len(text)
            assert index == 0 or view.lo[index] >= view.lo[index - 1]


# -- known spellings: several patterns searched as their alternation ------------------------------

SPELLING_CHARS = st.sampled_from(list("ab1290.-:"))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(SPELLING_CHARS, min_size=1, max_size=9), min_size=1, max_size=12), st.text(st.sampled_from(list("ab1290.-: x")), max_size=60))
def test_spellings_match_as_their_alternation_would(spellings: list[str], text: str) -> None:
    from evidence_kit.redact.spellings import compile_spellings

    compiled = compile_spellings(set(spellings))
    assert compiled is not None
    alternation = re.compile("|".join(pattern.pattern for pattern in compiled.patterns))
    assert [m.span() for m in compiled.finditer(text)] == [m.span() for m in alternation.finditer(text)]
    first = alternation.search(text)
    found = compiled.search(text)
    assert (found.span() if found else None) == (first.span() if first else None)


# -- cheap tests: literal-led patterns that say what the alternation they replace said -------------

HINT_TEXT = st.text(st.sampled_from(list("09x.:-aG ")), max_size=24)


@settings(max_examples=500, deadline=None)
@given(HINT_TEXT)
def test_literal_led_hints_answer_as_the_alternations_did(text: str) -> None:
    from evidence_kit.redact.detectors import _MAC_HINTS
    from evidence_kit.redact.views import _ADDRESS_HINTS

    hexa = "[0-9a-fA-F]"
    mac = re.compile(
        f":{hexa}{{2}}:{hexa}{{2}}:{hexa}{{2}}:{hexa}{{2}}:|-{hexa}{{2}}-{hexa}{{2}}-{hexa}{{2}}-{hexa}{{2}}-|{hexa}{{4}}\\.{hexa}{{4}}\\."
    )
    address = re.compile(r"(?<!\.)0[0-9xX][0-9a-fA-F]{0,2}\.|\.0[0-9xX]")
    assert bool(address.search(text)) == any(hint.search(text) for hint in _ADDRESS_HINTS)
    # The Cisco hint is looser (a dot need not follow four hex digits): it must never say no where the old said yes.
    assert not mac.search(text) or any(hint.search(text) for hint in _MAC_HINTS)


# -- discovery: one search over many texts joined ---------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(st.text(ALPHABET, max_size=10), st.sampled_from(HOSTS + IPS + PLANTED[:12])), max_size=30),
    st.lists(st.sampled_from(HOSTS + IPS + ("alice", "10.1.2", "gamma")), min_size=1, max_size=4),
    st.integers(min_value=1, max_value=7),
)
def test_joined_search_flags_exactly_the_texts_a_search_each_would(texts: list[str], spellings: list[str], chunk: int) -> None:
    from evidence_kit.redact.discover import _mentioning
    from evidence_kit.redact.matcher import lowered
    from evidence_kit.redact.spellings import compile_spellings

    probe = compile_spellings({s.lower() for s in spellings})
    assert probe is not None
    one_by_one = [t for t in texts if probe.search(lowered(t)) or any(probe.search(lowered(v.text)) for v in views(t))]
    flagged = list(_mentioning(probe, texts, chunk=chunk))
    assert set(one_by_one) <= set(flagged)  # nothing missed
    # A text is flagged beyond the one-by-one search only when a match ran over a join into it.
    for text in set(flagged) - set(one_by_one):
        assert any(probe.search(lowered(a + "\0" + b)) for a in texts for b in texts if text in (a, b))


# -- the JSONL rewrite: a line whose literals are all clean is copied --------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["k", "host", "msg", "private"]),
            st.one_of(st.integers(), st.sampled_from(HOSTS + IPS + PLANTED), st.text(max_size=8)),
            max_size=4,
        ),
        min_size=1,
        max_size=12,
    )
)
def test_copied_jsonl_lines_are_the_lines_redone(tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, object]]) -> None:
    from collections import Counter

    from evidence_kit.redact.ledger import Ledger
    from evidence_kit.redact.pseudonyms import Pseudonyms
    from evidence_kit.redact.walkers import _Literals, file_texts, redact_file

    folder = tmp_path_factory.mktemp("jsonl")
    src = folder / "in.jsonl"
    # Escaped (a backslash sends a batch line by line) and as written (a batch is split at its quotes).
    src.write_text("".join(json.dumps(r, ensure_ascii=ascii) + "\n" for r in records + records for ascii in (True, False)))
    matcher = Matcher([KnownValue("host", HOSTS[0]), KnownValue("ip", IPS[1])])
    ledger = Ledger()  # what discovery notes: unchanged batches are copied without a split
    for _ in file_texts(src, "jsonl", check=True, ledger=ledger):
        pass
    fast_counts = redact_file(src, folder / "fast.jsonl", "jsonl", matcher, Pseudonyms(None))
    noted_counts = redact_file(src, folder / "noted.jsonl", "jsonl", matcher, Pseudonyms(None), ledger)
    slow, slow_counts = _Literals(matcher, Pseudonyms(None)), Counter()
    # Lines end at "\n" only (str.splitlines would also end one at U+0085, written raw here).
    lines = [slow.rewrite(line, slow_counts) + "\n" for line in src.read_text().split("\n")[:-1]]
    assert (folder / "fast.jsonl").read_text() == (folder / "noted.jsonl").read_text() == "".join(lines)
    assert fast_counts == noted_counts == slow_counts


# -- the ledger: a batch read again byte for byte is the batch discovery listed ------------------


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["k", "host", "msg", "n"]),
            st.one_of(st.integers(), st.sampled_from(("clean", "run-1", "stop", "clean") + HOSTS[:1])),
            max_size=4,
        ),
        min_size=1,
        max_size=20,
    ),
    st.integers(min_value=0, max_value=40),
    st.sampled_from(["", HOSTS[0], '"x": "' + HOSTS[1] + '"', "\\"]),
    st.integers(min_value=16, max_value=200),
)
def test_scan_with_the_ledger_finds_what_it_finds_without(
    tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, object]], where: int, planted: str, batch: int
) -> None:
    from unittest import mock

    from evidence_kit.redact import walkers
    from evidence_kit.redact.ledger import Ledger
    from evidence_kit.redact.scanner import _scan_jsonl
    from evidence_kit.redact.walkers import file_texts

    folder = tmp_path_factory.mktemp("ledger")
    raw, out = folder / "raw.jsonl", folder / "out.jsonl"
    lines = [json.dumps(record, ensure_ascii=False) + "\n" for record in records]
    raw.write_text("".join(lines))
    if planted:  # the output differs from what discovery read: a changed line, or one more
        index = where % (len(lines) + 1)
        lines[index:index] = [planted + "\n"] if where % 2 else []
        if not where % 2 and index < len(lines):
            lines[index] = lines[index].replace("clean", planted.replace('"', "'"))
    out.write_text("".join(lines))
    with mock.patch.object(walkers, "_BATCH", batch):  # many batches of a few lines each
        ledger = Ledger()
        for _ in file_texts(raw, "jsonl", check=True, ledger=ledger):
            pass

        def scan(with_ledger: bool) -> list[object]:
            matcher = Matcher([KnownValue("host", HOSTS[0]), KnownValue("host", HOSTS[1])])
            matcher.for_scanning(())
            return list(_scan_jsonl(out, "out.jsonl", matcher, ledger if with_ledger else None))

        assert scan(True) == scan(False)


# -- JSONL a batch at a time ----------------------------------------------------------------------

jsonl_records = st.lists(
    st.dictionaries(
        st.sampled_from(["k", "host", "msg", "Hostname", "n"]),
        st.one_of(st.integers(), st.sampled_from(HOSTS + IPS + PLANTED[:10]), st.sampled_from(["ok", "stop", "x\\y"])),
        max_size=4,
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jsonl_records, st.integers(min_value=16, max_value=400))
def test_batched_jsonl_scan_rewrite_and_texts_equal_line_by_line(
    tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, object]], batch: int
) -> None:
    from evidence_kit.redact import scanner, walkers
    from evidence_kit.redact.pseudonyms import Pseudonyms

    folder = tmp_path_factory.mktemp("batch")
    src = folder / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records * 3))
    known = [KnownValue("host", HOSTS[0]), KnownValue("ip", IPS[1])]
    results = []
    for size in (batch, 1):  # batches of lines, then a line at a time (readlines(1) reads one line)
        walkers._BATCH = size
        try:
            texts = {t for b in walkers.file_texts(src, "jsonl", check=True, harvested=[]) for t in b}
            matcher = Matcher(known)
            walkers.redact_file(src, folder / f"out-{size}.jsonl", "jsonl", matcher, Pseudonyms(None))
            scan = Matcher(known)
            scan.for_scanning(())
            found = sorted(scanner._scan_text(folder / f"out-{size}.jsonl", "x", "jsonl", scan, True))
            raw_found = sorted(scanner._scan_text(src, "x", "jsonl", Matcher(known), True))
        finally:
            walkers._BATCH = 1 << 20
        results.append((texts, (folder / f"out-{size}.jsonl").read_text(), found, raw_found))
    assert results[0] == results[1]
