"""Hypothesis fuzzing of the JSON walker: any JSON in, valid JSON out, no known value left."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.redact.matcher import Matcher
from evidence_kit.redact.pseudonyms import Pseudonyms
from evidence_kit.redact.variants import KnownValue
from evidence_kit.redact.walkers import redact_json_text

from . import corpus

KNOWN = [KnownValue("model", corpus.MODEL), KnownValue("host", corpus.HOST), KnownValue("gpu", corpus.GPUS[0])]
SPELLINGS = [corpus.MODEL, corpus.MODEL.upper(), "models--acme-labs--falcon-secret-70b", "gpu-node-17", corpus.GPUS[0]]

canary_text = st.builds(
    lambda before, canary, after: before + canary + after,
    st.text(max_size=8),
    st.sampled_from(SPELLINGS),
    st.text(max_size=8),
)
strings = st.one_of(st.text(max_size=20), canary_text)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), strings)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(strings, inner, max_size=4)),
    max_leaves=20,
)


def _pairs(text):
    """Parse keeping every key, even two that redaction made equal."""
    return json.loads(text, object_pairs_hook=lambda pairs: ("object", pairs))


def _numbers(value):
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, tuple):
        return [n for _, item in value[1] for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return []


def _strings(value):
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple):
        return [s for key, item in value[1] for s in [key, *_strings(item)]]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@settings(max_examples=300, deadline=None)
@given(documents, st.booleans())
def test_any_json_in_valid_json_out_nothing_known_left(document, ascii_only):
    matcher = Matcher(KNOWN)
    pseudonyms = Pseudonyms(b"fuzz-key-0123456789abcdef")
    text = json.dumps(document, ensure_ascii=ascii_only)
    out = redact_json_text(text, matcher, pseudonyms, Counter())
    parsed = _pairs(out)  # valid JSON
    assert _numbers(parsed) == _numbers(_pairs(text))  # numbers untouched, in the same order
    for value in _strings(parsed):
        assert [hit for hit in matcher.known_leaks(value)] == []
        for spelling in SPELLINGS:
            assert spelling.lower() not in value.lower()
    assert redact_json_text(out, matcher, pseudonyms, Counter()) == out  # idempotent
