"""The format records hold only what their types let them: every field classed, every public string constrained.

This is what makes a reader unable to publish an operator's string: a public string field of a
format record is a ``Literal``, a closed vocabulary (``Words``), a strict shape (``Shape``), or a
value its record's validator checks against a registry (``Checked``); never free text.
"""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import BaseModel, ValidationError

from evidence_kit.model.formats import LABELS, PrometheusScrape, Sample, VllmStartup
from evidence_kit.model.formats.constraints import string_leaves
from evidence_kit.model.formats.shapes import SHAPES
from evidence_kit.model.publication import ClassedField, IdentityKind, Publication, classed_fields
from evidence_kit.redact.formats import READERS, public_words

RECORDS = sorted({reader.record for reader in READERS}, key=lambda r: r.__name__)
ALL = list(classed_fields(*RECORDS))
PUBLIC = [f for f in ALL if f.classed is not None and f.classed.publication is Publication.PUBLIC]


@pytest.mark.parametrize("field", ALL, ids=lambda f: f.where)
def test_every_leaf_field_declares_its_class(field: ClassedField) -> None:
    assert field.records or field.classed is not None, f"{field.where} declares no publication class"


@pytest.mark.parametrize("field", PUBLIC, ids=lambda f: f.where)
def test_no_public_string_is_free_text(field: ClassedField) -> None:
    info = field.model.model_fields[field.name]
    leaves = list(string_leaves(info.annotation, tuple(info.metadata)))
    assert all(leaf.kind != "free" for leaf in leaves), f"{field.where}: a public string nothing constrains"


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.__name__)
def test_records_refuse_fields_they_do_not_declare_and_build_empty(record: type[BaseModel]) -> None:
    assert record.model_config.get("extra") == "forbid"
    record()  # a reader that finds nothing still returns a record
    with pytest.raises(ValidationError):
        record.model_validate({"hostname": "gpu-node-17"})


def test_a_public_field_refuses_a_value_of_another_shape() -> None:
    for bad in ({"version": "0.11.0+jdoe"}, {"settings": {"kv_cache_dtype": "gpu-node-17"}}, {"log": {"first_time": "gpu-node-17"}}):
        with pytest.raises(ValidationError):
            VllmStartup.model_validate(bad)
    with pytest.raises(ValidationError):
        Sample(metric="acme_gpu_node_17_rpm", value=1.0)
    with pytest.raises(ValidationError):
        Sample(metric="vllm:num_requests_running", value=1.0, labels={"le": "gpu-node-17"})
    with pytest.raises(ValidationError):
        Sample(metric="vllm:num_requests_running", value=1.0, labels={"model_name": "falcon"})  # an identity label is no public one
    assert PrometheusScrape(samples=[Sample(metric="vllm:num_requests_running_total", value="+Inf", labels={"le": "+Inf"})]).samples


def test_every_identity_label_has_the_sample_field_of_its_name_and_kind() -> None:
    for name, rule in LABELS.items():
        if rule.kind is None:
            assert rule.words or rule.shapes, name
            assert name not in Sample.model_fields, name
            continue
        fields = {f.name: f.classed for f in classed_fields(Sample) if f.model is Sample}
        assert fields[name] is not None and fields[name].kind is rule.kind, name  # type: ignore[union-attr]
    identity_fields = {f.name for f in classed_fields(Sample) if f.classed and f.classed.publication is Publication.IDENTITY}
    assert identity_fields - {"instance_host", "instance_ip"} == {n for n, r in LABELS.items() if r.kind is not None}


def test_identity_kinds_used_are_the_publication_kinds() -> None:
    kinds = {f.classed.kind for f in classed_fields(*RECORDS) if f.classed and f.classed.kind}
    assert kinds <= set(IdentityKind)
    assert {
        IdentityKind.MODEL,
        IdentityKind.PATH,
        IdentityKind.HOST,
        IdentityKind.GPU,
        IdentityKind.SERIAL,
        IdentityKind.POD,
        IdentityKind.IMAGE,
    } <= kinds


def test_public_words_are_configuration_words_never_identities() -> None:
    words = public_words()
    assert {"auto", "fp8", "bfloat16", "ngram", "qwen3", "Running", "OOMKilled", "Default", "vllm:num_requests_running", "le"} <= words
    assert {"", "gpu-node-17", "tiny-ops", "falcon-secret", "10.20.30.40"}.isdisjoint(words)
    assert {"127.0.0.1", "0.0.0.0", "::1"} <= words  # an address that names no machine is published as it is
    # A record is published as <name>.<reader>.json: a raw file named after a reader must not make its own record a finding.
    assert {"docker-inspect", "docker-inspect.json", "vllm-startup-log.json"} <= words
    # Every word of every public Literal of every record is there.
    for field in PUBLIC:
        info = field.model.model_fields[field.name]
        for leaf in string_leaves(info.annotation, tuple(info.metadata)):
            assert set(leaf.words) - {""} <= words, field.where


def test_shapes_are_anchored_and_name_what_they_admit() -> None:
    for shape in SHAPES:
        assert shape.pattern.startswith("^") and shape.pattern.endswith("$"), shape.name
        assert shape.admits and not shape.fits("gpu-node-17.acme.internal") and not shape.fits("/home/jdoe"), shape.name


def test_label_rules_words_are_strings() -> None:
    assert all(isinstance(w, str) for rule in LABELS.values() for w in rule.words)
    assert get_args(Sample.model_fields["value"].annotation)
