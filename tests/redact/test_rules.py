"""Each rule of the known-value scan holds its own examples (redact/rules): they are its tests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.redact.hunt import Hunter, KnownValue, spellings_of
from evidence_kit.redact.rules import RULES, Rule, rules_of
from evidence_kit.redact.rules.readings import readings


def _cases(family: str) -> list[tuple[Rule, object]]:
    return [(rule, example) for rule in rules_of(family) for example in rule.examples]


def test_every_rule_has_examples_and_a_family() -> None:
    assert RULES and all(rule.examples for rule in RULES)
    assert {rule.family for rule in RULES} == {"spelling", "reading", "guard"}
    assert len({rule.name for rule in RULES}) == len(RULES)


@pytest.mark.parametrize(("rule", "example"), _cases("spelling"), ids=lambda x: getattr(x, "name", getattr(x, "given", "")))
def test_spelling_rule_examples(rule, example) -> None:
    assert rule.spell is not None and example.kind is not None
    spelled = {text for text, _ in rule.spell(example.given)}
    hunted = spellings_of([KnownValue(example.kind.value, example.given)])
    for form in example.gives:
        assert form in spelled, form
        assert _hunted(form) in hunted, f"{form} is spelled but not hunted"
    for form in example.not_gives:
        assert _hunted(form) not in hunted, form


def _hunted(form: str) -> str:
    """A spelling as the table holds it: case folded, every in-place reading applied."""
    from evidence_kit.redact.hunt import _in_place

    return _in_place(form.casefold())


@pytest.mark.parametrize(("rule", "example"), _cases("reading"), ids=lambda x: getattr(x, "name", ""))
def test_reading_rule_examples(rule, example) -> None:
    assert rule.read is not None
    read = rule.read(example.given)
    assert read is not None and all(form in read for form in example.gives), read
    if not rule.always:  # an in-place reading is applied by the engine itself, to texts and spellings
        assert all(any(form in r for r in readings(example.given)) for form in example.gives)


@pytest.mark.parametrize(("rule", "example"), _cases("guard"), ids=lambda x: getattr(x, "name", getattr(x, "given", "")))
def test_guard_rule_examples(rule, example) -> None:
    assert rule.refuses is not None
    if "refused" in example.gives:
        assert rule.refuses(example.given), example.given
        assert not spellings_of([KnownValue("value", example.given)]), "a guarded word is never hunted"
    if "refused" in example.not_gives:
        assert not rule.refuses(example.given), example.given


def test_the_engine_names_no_rule() -> None:
    from pathlib import Path

    engine = (Path(__file__).resolve().parents[2] / "evidence_kit" / "redact" / "hunt.py").read_text()
    assert not [rule.name for rule in RULES if f'"{rule.name}"' in engine or rule.name.replace("-", "_") in engine]


def test_a_host_is_found_behind_a_colour_code_an_escape_and_with_spaces_for_hyphens() -> None:
    hunter = Hunter([KnownValue("host", "gpu-node-17.lab.acme-corp.internal"), KnownValue("model", "acme-labs/falcon-secret-70b")])
    assert hunter.find("\x1b[32mgpu-node-17\x1b[0m up") == "host"
    assert hunter.find('"line one\\ngpu-node-17 up"') == "host"
    assert hunter.find("served falcon secret 70b today") == "model"
    assert hunter.find("GPU-NODE-17") == "host"
    assert hunter.find("nothing private here, only tiny docs and 0.32.0") is None


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='aAbZ09+/_-=. ,\n"é', max_size=120))
def test_the_base64_reading_looks_at_every_run_the_simple_rule_names(text):
    # The reading starts from each capital instead of listing every run (a journal is mostly runs of small
    # letters and digits): it must look at exactly the runs of 16 or more that are not all small letters,
    # all capitals or all digits.
    import re

    from evidence_kit.redact.rules.readings import _base64_runs

    simple = [r for r in re.findall(r"[A-Za-z0-9+/_-]{16,}={0,2}", text) if not (r.islower() or r.isupper() or r.isdigit())]
    assert [run for _, run in _base64_runs(text)] == simple
