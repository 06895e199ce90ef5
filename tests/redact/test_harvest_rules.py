"""The harvesting rules of docs/redaction.md ("What is private"), one small case each."""

from __future__ import annotations

import pytest

from evidence_kit.redact.harvest import harvest_text, is_quantity_key, reconcile
from evidence_kit.redact.variants import KnownValue, classify, variants
from evidence_kit.redact.walkers import _may_hold_private, _private_numbers


@pytest.mark.parametrize(
    "key",
    [
        "gpu_serial",
        "gpu_serial_num",
        "gpuSerialNum",
        "serial_number",
        "account",
        "account_id",
        "board",
        "api_token",
        "gpu_uuids",
        "phone_number",
        "max_id",
        "private",
    ],
)
def test_a_number_under_an_identity_key_is_an_identity(key):
    assert not is_quantity_key(key)


@pytest.mark.parametrize(
    "key",
    [
        "tensor_parallel_size",
        "max_model_len",
        "num_serials",
        "serial_count",
        "per_pid",
        "engine_pid",
        "start_times",
        "worker_pids",
        "ports",
        "block_num",
        "max_num_seqs",
        "max_tokens",
        "kv_token_slots",
        "process_start_time_s",
        "rss_bytes",
        "timestamp",
        "num",
    ],
)
def test_a_number_under_a_quantity_key_is_a_quantity(key):
    assert is_quantity_key(key)


def test_every_pair_is_harvested_and_a_digit_key_follows_the_number_rule():
    found = harvest_text(
        '{"private": {"host": "rack-a", "host": "rack-b", "per_pid": {"204857": {}}},'
        ' "private": {"gpu_serial_num": 9988776655443, "per_board": {"1322021012345": 1}}}'
    )
    assert found == [
        KnownValue("host", "rack-a"),
        KnownValue("host", "rack-b"),
        KnownValue("serial", "9988776655443"),
        KnownValue("serial", "1322021012345"),
    ]


def test_a_key_naming_no_class_takes_the_class_of_the_key_above_it_and_one_value_has_one_class():
    found = harvest_text('{"private": {"note": "acme/owl-9b", "models": [{"id": "acme/owl-9b", "root": "acme/owl-9b"}], "model": "acme/owl-9b"}}')
    assert found == [KnownValue("model", "acme/owl-9b")]
    assert reconcile([KnownValue("value", "x1y2z3"), KnownValue("hex", "x1y2z3"), KnownValue("host", "x1y2z3")]) == [KnownValue("host", "x1y2z3")]


@pytest.mark.parametrize(
    ("value", "key", "cls"),
    [
        ("zeta-node-5.lab.zeta-corp.internal", "server", "host"),
        ("zeta-node-5.lab.zeta-corp", "bastion", "host"),
        ("config.yaml", "note", "value"),
        ("vllm.entrypoints.openai", "note", "value"),
        ("Llama-3.1-8B-Instruct", "served_model_name", "model"),
        ("vllm serve /data/x", "start_command", "path"),
    ],
)
def test_classify(value, key, cls):
    assert classify(value, key) == cls


def _spellings(cls: str, value: str) -> set[str]:
    return {v.text for v in variants(KnownValue(cls, value)) if not v.exact}


def test_url_variants_name_its_password_and_the_object_its_path_names_but_not_an_api_path():
    assert "Sup3rS3cretPw" in _spellings("endpoint", "https://svc:Sup3rS3cretPw@api.zeta.internal/v1")
    hub = _spellings("endpoint", "https://huggingface.co/zeta-labs/owl-9b/resolve/main/config.json")
    assert {"owl-9b", "models--zeta-labs--owl-9b", "zeta-labs/owl-9b"} <= hub and "huggingface.co" not in hub
    assert "kestrel-3b" in _spellings("endpoint", "s3://zeta-weights/ckpts/kestrel-3b/step-1200")
    api = _spellings("endpoint", "http://gpu-node-17.lab.acme-corp.internal:8123/v1")
    assert "/v1" not in api and "gpu-node-17" in api
    assert "zeta-node-6" in _spellings("endpoint", "zeta-node-6:8123")


def test_a_command_line_is_not_split_at_its_slashes():
    found = _spellings("path", "vllm serve '/srv/work/Project Kestrel/ckpt-owl' --port 8000")
    assert {"Kestrel", "Project Kestrel", "ckpt-owl"} <= found
    assert not {"vllm serve '", "ckpt-owl' --port 8000"} & found  # pieces of the line split at "/"


def test_an_escaped_private_key_is_seen_and_its_numbers_found():
    text = '{"priv\\u0061te": {"psu_serial": 7766554433221}, "x": 1}'
    assert _may_hold_private(text) and not _may_hold_private('{"\\u00b5s": 1}')
    assert [text[a:b] for a, b in _private_numbers(text)] == ["7766554433221"]
