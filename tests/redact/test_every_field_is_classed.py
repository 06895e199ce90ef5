"""Every field of every record the redactor writes declares how it is published (model/publication.py)."""

from __future__ import annotations

import pytest

from evidence_kit.model import Check, Decision, Footer, Gate, Header, Manifest, Receipt, Request, Run, TelemetrySample, Trial
from evidence_kit.model.publication import Publication, classed_fields
from evidence_kit.redact.formats import READERS

ROOTS = (Trial, Header, Request, Run, Gate, Check, Footer, TelemetrySample, Decision, Receipt, Manifest, *(reader.record for reader in READERS))


def test_every_leaf_field_declares_a_class() -> None:
    unclassed = [f.where for f in classed_fields(*ROOTS) if f.classed is None and not f.records]
    assert not unclassed, f"fields without a publication class: {', '.join(unclassed)}"


def test_a_field_holding_records_declares_no_class_of_its_own() -> None:
    # Its records' fields declare theirs: a class on the holder would say nothing the walk uses.
    both = [f.where for f in classed_fields(*ROOTS) if f.classed is not None and f.records]
    assert not both, both


@pytest.mark.parametrize(
    ("where", "cls"),
    [
        ("Header.started_at", "public"),
        ("EngineInfo.version", "public"),
        ("CacheSettings.cache_dtype", "public"),
        ("HeaderPrivate.host", "identity:host"),
        ("HeaderPrivate.config_fingerprint", "identity:fingerprint"),
        ("EngineIdentity.gpu_uuids", "identity:gpu"),
        ("Request.error", "code:failure"),
        ("Request.finish_reason", "code:finish"),
        ("CheckPrivate.log_tail", "secret"),
        ("Trial.title", "prose"),
        ("Decision.narrative", "prose"),
    ],
)
def test_the_classes_the_contract_promises(where: str, cls: str) -> None:
    found = {f.where: str(f.classed) for f in classed_fields(*ROOTS) if f.classed is not None}
    assert found[where] == cls


def test_the_private_parts_hold_identities_and_secrets_only() -> None:
    # The collector's `private` records keep what identifies; settings and versions are public fields elsewhere.
    from evidence_kit.model.journal import CheckPrivate, HeaderPrivate, RunPrivate

    kinds = {f.classed.publication for f in classed_fields(HeaderPrivate, RunPrivate, CheckPrivate) if f.classed is not None}
    assert kinds <= {Publication.IDENTITY, Publication.SECRET}


CONTRACT = (Trial, Header, Request, Run, Gate, Check, Footer, TelemetrySample, Decision)


def test_no_public_string_of_the_contract_is_free_text() -> None:
    # A public field is published as it is: each of its strings names a shape or a vocabulary
    # (model/texts.py), or an unknown host planted there goes out untouched (the adversary's round).
    from evidence_kit.model.formats.constraints import string_leaves

    free = []
    for f in classed_fields(*CONTRACT):
        if f.classed is not None and f.classed.publication is Publication.PUBLIC:
            info = f.model.model_fields[f.name]
            if any(leaf.kind == "free" for leaf in string_leaves(info.annotation, tuple(info.metadata))):
                free.append(f.where)
    assert not free, f"public strings nothing constrains: {', '.join(free)}"


def test_the_composed_vocabulary_is_generated_from_the_source() -> None:
    from pathlib import Path

    from evidence_kit.model import composed_source

    generated = Path(composed_source.__file__).with_name("composed_words.py").read_text(encoding="utf-8")
    assert generated == composed_source.module_text(), "run: python -m evidence_kit.model.composed_source"


def test_the_gate_and_check_vocabularies_are_the_collectors() -> None:
    import ast
    from pathlib import Path

    import evidence_kit
    from evidence_kit.collect.gates import GATES
    from evidence_kit.model.texts import CHECK_NAMES, GATE_NAMES

    assert GATE_NAMES.words == frozenset(GATES)
    written = set()
    for path in (Path(evidence_kit.__file__).parent / "collect").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            is_check = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "check"
            if is_check and node.args and isinstance(node.args[0], ast.Constant):
                written.add(node.args[0].value)
    assert written == CHECK_NAMES.words
