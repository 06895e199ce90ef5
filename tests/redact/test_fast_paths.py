"""Differential tests: every shortcut of the redactor gives exactly what the slow path gives.

The shortcuts are the cheap tests that skip a detector or the label pattern on a
line that cannot hold a hit, and the copying of lines whose output still holds
when a later round redoes a file. The slow paths are rebuilt here from the
public patterns (every detector regex on every text, every line redone), and
hypothesis compares both on random text with planted values, including the
letters re's IGNORECASE folds differently from ``str.lower`` (Kelvin sign, long s,
dotted and dotless i).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evidence_kit.redact import bundle, redact_bundle
from evidence_kit.redact.detectors import _LABEL_TEXT, DETECTORS, LABELS, Detectors, find, find_labelled, is_public, label_class
from evidence_kit.redact.matcher import Matcher, views
from evidence_kit.redact.pseudonyms import Pseudonyms
from evidence_kit.redact.scanner import _line_hits
from evidence_kit.redact.variants import KnownValue
from evidence_kit.redact.walkers import _LITERAL as PATTERN_LITERAL
from evidence_kit.redact.walkers import LineRecord, plain_literals

PLANTED = (
    "GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "MIG-GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e/1/0",
    "123e4567-e89b-12d3-a456-426614174000", "02:42:ac:11:00:03", "02-42-ac-11-00-03", "10.20.30.40",
    "fe80::1c2d:3e4f:5a6b:7c8d", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "12::30", "/home/jdoe/models/x",
    "/data7/ckpt/run-1", "/var/lib/docker/overlay2", "~/secrets/key", "$HOME/.cache", "C:\\Users\\jdoe\\x",
    "\\\\fileserver\\share\\x", "http://gpu-node-17.lab.acme-corp.internal:8123/v1", "s3://bucket/key).",
    "jdoe@acme-corp.com", "gpu-node-17.lab.acme-corp.internal", "node7.CORP", "box.co.\u212a", "x.\u017fe",
    "a.\u0131o", "Bearer abcdefgh12345", "sk-abcdefghijklmnop1234", "hf_QzXwVbNmLkJhGfDsAqWe", "ghp_" + "a1" * 11,
    "AKIAABCDEFGHIJKLMNOP", "xoxb-1234567890-abc", "eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM", "3f9c2a7d4e1b8c6a0f5d",
    "deadbeef", "1.234567e+16", "c0ffee5", "Serial Number : 1652020012345", "hostname=box7", "\u017ferial: X9Y8Z7",
    "Serial Number .......... : ABC123", "api_key: \"k3y\"", "IMAGE=vllm/vllm-openai:latest", "localhost",
    "127.0.0.1", "0.11.1", "engine.py:102]", "tokens/s", "45.6%", "%2Fhome%2Fjdoe", "&#47;home&#47;jdoe",
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
    """The slow path of :func:`find_labelled`: the label pattern on every text."""
    return [(m.start(2), m.end(2), label_class(m.group(1)))
            for m in _LABEL_TEXT.finditer(text) if len(m.group(2)) >= 3 and not is_public(m.group(2))]


FAST, SLOW = Detectors(), _EveryDetector()


@settings(max_examples=1500, deadline=None)
@given(texts)
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

    assert all(any(hint in label for hint in _LABEL_HINTS) for label in LABELS)
    for label in LABELS:
        assert [h[2] for h in find_labelled(f"{label.upper()}: secretvalue9")] == [LABELS[label]]
    # Letters re's IGNORECASE folds but str.lower does not: found, and no KeyError (was a crash).
    assert [h[2] for h in find_labelled("\u017ferial: X9Y8Z7")] == ["serial"]
    assert [h[2] for h in find_labelled("api_\u212aey=abc123")] == ["token"]
    assert [h[2] for h in find_labelled("\u0130MAGE: registry.example.org/x")] == ["image"]


# -- copying lines a later round need not redo --------------------------------------------------

HOSTS = ("alpha-node-1.lab.acme-corp.internal", "beta-node-22.dc.acme-corp.internal", "gamma-7.corp")
IPS = ("10.1.2.3", "10.1.2.33", "192.168.7.9")
log_lines = st.lists(
    st.one_of(
        st.text(ALPHABET, max_size=30),
        st.builds(lambda a, v, b: a + v + b, st.text(ALPHABET, max_size=6),
                  st.sampled_from(HOSTS + IPS + tuple(h.split(".")[0] for h in HOSTS) + PLANTED[:20]),
                  st.text(ALPHABET, max_size=6)),
    ),
    min_size=1, max_size=40,
)


def _make_raw(root: Path, logs: list[list[str]], endings: list[str]) -> Path:
    root.mkdir(parents=True)
    (root / "trial.json").write_text(json.dumps({"trial_id": "t", "private": {"host": "seed-host.acme.internal"}}) + "\n")
    (root / "logs").mkdir()
    for index, lines in enumerate(logs):
        with (root / "logs" / f"{index}-engine.log").open("w", newline="") as handle:
            handle.writelines(line + endings[i % len(endings)] for i, line in enumerate(lines))
    with (root / "events.jsonl").open("w") as handle:
        for lines in logs:
            handle.writelines(json.dumps({"msg": line, "n": len(line)}) + "\n" for line in lines)
    return root


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(log_lines, min_size=1, max_size=3), st.sampled_from([["\n"], ["\r\n"], ["\n", "\r\n", "\r"]]),
       st.sampled_from([None, b"differential-test-key-0123456789"]))
def test_copied_lines_equal_redone_lines(tmp_path_factory: pytest.TempPathFactory, logs: list[list[str]],
                                         endings: list[str], key: bytes | None) -> None:
    raw = _make_raw(tmp_path_factory.mktemp("raw") / "trial", logs, endings)
    fast = redact_bundle(raw, tmp_path_factory.mktemp("fast") / "b", key=key)
    original = LineRecord.reusable
    LineRecord.reusable = lambda self, generation: False  # type: ignore[method-assign]  # the slow path
    try:
        slow = redact_bundle(raw, tmp_path_factory.mktemp("slow") / "b", key=key)
    finally:
        LineRecord.reusable = original  # type: ignore[method-assign]
    assert _tree(fast.out) == _tree(slow.out)
    assert fast.counts == slow.counts
    assert fast.findings == slow.findings


def test_a_late_discovery_is_copied_around_not_missed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log that names a host's short name before its full name: round two redoes only those lines."""
    lines = [f"step {i} ok" for i in range(200)]
    lines[5] = "worker delta-node-9 started"
    lines[150] = "connected to delta-node-9.lab.acme-corp.internal"
    raw = _make_raw(tmp_path / "raw", [lines], ["\n"])
    redone: list[int] = []
    original = bundle.redact_file

    def spy(src, dst, kind, matcher, record=None, previous=None):  # type: ignore[no-untyped-def]
        if previous is not None:
            redone.append(sum(1 for _, g in previous[1].runs if g == -1))
        return original(src, dst, kind, matcher, record, previous)

    monkeypatch.setattr(bundle, "redact_file", spy)
    result = redact_bundle(raw, tmp_path / "out", key=b"differential-test-key-0123456789")
    assert result.publishable and redone  # the log was redone from its earlier output
    text = (tmp_path / "out" / "logs" / "0-engine.log").read_text()
    assert "delta-node-9" not in text and "acme-corp" not in text
    assert text.splitlines()[6] == "step 6 ok" and len(text.splitlines()) == 200


def test_line_record_generations() -> None:
    record = LineRecord()
    for number, generation in enumerate([3, 3, -1, 4, 4, 4], start=1):
        record.add(number, generation, Counter({"host": 1}) if generation == 4 else None)
    assert record.runs == [(1, 3), (3, -1), (4, 4)]
    assert record.counts == {4: Counter({"host": 3})}
    generations = record.generations()
    assert [next(generations) for _ in range(8)] == [3, 3, -1, 4, 4, 4, 4, 4]
    assert record.reusable(4) and not record.reusable(5)
    record.aligned = False
    assert not record.reusable(4)


# -- string literals found by splitting at quotes --------------------------------------------------

json_ish = st.lists(st.one_of(st.sampled_from(['"', '\\', '\n', '\r', '\\"', '": "', '{"a": "', '"}']),
                              st.text(ALPHABET, max_size=6)), max_size=12).map("".join)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(json_ish, st.builds(json.dumps, st.dictionaries(st.text(max_size=5), st.text(max_size=5)))))
def test_split_literals_are_the_pattern_literals(text: str) -> None:
    plain = plain_literals(text)
    if plain is not None:
        assert plain == [raw[1:-1] for raw in PATTERN_LITERAL.findall(text)]
    if "\\" not in text and "\n" not in text:
        assert plain is not None  # the shortcut is taken wherever it is exact


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["k", "host", "msg"]),
                                st.one_of(st.integers(), st.sampled_from(HOSTS + IPS + PLANTED), st.text(max_size=8)),
                                max_size=4), min_size=1, max_size=6))
def test_clean_line_shortcut_keeps_every_hit(records: list[dict[str, object]]) -> None:
    """A line is passed over only when each of its literals was found clean: same hits as literal by literal."""
    matcher = Matcher(Pseudonyms(None))
    matcher.add(KnownValue("host", HOSTS[0]))
    lines = [json.dumps(record) + "\n" for record in records]
    for line in lines + lines:  # the second time round, clean literals are remembered
        expected = [h for raw in PATTERN_LITERAL.findall(line)
                    for h in matcher.leaks(json.loads(raw))]
        assert _line_hits(matcher, line, True, True) == expected


def _every_view(text: str) -> list[str]:
    """The slow path of :func:`views`: every decoder on every text that has its marker."""
    import html
    from urllib.parse import unquote

    from evidence_kit.redact.matcher import _unescape_json

    out = [decode(text) for marker, decode in (("\\", _unescape_json), ("%", unquote), ("&", html.unescape))
           if marker in text]
    return [view for view in out if view != text]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(st.text(ALPHABET, max_size=6),
                          st.sampled_from(["%", "%2F", "%2f", "%zz", "%e9", "%C3%A9", "%ff", "%4", "&amp;", "\\u0041", "\\/"])),
                max_size=10).map("".join))
def test_views_skip_no_decoding(text: str) -> None:
    assert views(text) == _every_view(text)


# -- newly learnt spellings in a second, small pattern ----------------------------------------------

VALUES = (
    KnownValue("ip", "10.20.30.2"), KnownValue("ip", "10.20.30.23"), KnownValue("ip", "10.20.30.4"),
    KnownValue("host", "gpu-node-1.lab.acme-corp.internal"), KnownValue("host", "gpu-node-17.lab.acme-corp.internal"),
    KnownValue("host", "node7.corp"), KnownValue("user", "alice"), KnownValue("user", "alic"),
    KnownValue("model", "acme-labs/falcon-secret-70b"), KnownValue("model", "acme-labs/falcon"),
    KnownValue("serial", "1652020012345"), KnownValue("serial", "16520200"), KnownValue("revision", "3f9c2a7d4e1b8c6a"),
    KnownValue("value", "lab.acme"), KnownValue("value", "x-acme-corp"),
    # Short spellings with a punctuation edge sit in earlier boundary buckets than longer ones
    # starting alike: there the bucket, not the length, decides.
    KnownValue("value", "-ab-"), KnownValue("value", "-ab-cd"), KnownValue("value", ".acme."), KnownValue("value", ".acme.x9"),
)
spelled = st.lists(st.one_of(st.text(ALPHABET, max_size=5),
                             st.sampled_from([v.value for v in VALUES] + ["gpu-node-1", "gpu-node-17", "ALICE", "malice",
                                                                          "models--acme-labs--falcon", "10.20.30.234",
                                                                          "-ab-cd ", ".acme.x9."])),
                   max_size=10).map("".join)


@settings(max_examples=800, deadline=None)
@given(st.permutations(VALUES), st.integers(min_value=1, max_value=len(VALUES) - 1), st.lists(spelled, min_size=1, max_size=4))
def test_two_patterns_match_as_one(values: list[KnownValue], split: int, texts: list[str]) -> None:
    matcher = Matcher(Pseudonyms(None))
    for known in values[:split]:
        matcher.add(known)
    list(matcher._spellings_in(""))  # the full pattern, compiled now
    for known in values[split:]:
        matcher.add(known)
    list(matcher._spellings_in(""))
    assert matcher._recent is not None  # the later values are in the small pattern
    for text in texts:
        lowered = text.lower()
        if len(lowered) != len(text):
            continue
        one = matcher.known_pattern()
        expected = [(m.start(), m.end(), m.group()) for m in one.finditer(lowered)] if one else []
        assert list(matcher._spellings_in(lowered)) == expected
