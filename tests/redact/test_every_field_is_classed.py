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
