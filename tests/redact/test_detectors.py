"""Detectors and variants: what they catch, and the public things they must leave alone."""

from __future__ import annotations

import pytest

from evidence_kit.redact.matcher import Matcher
from evidence_kit.redact.pseudonyms import Pseudonyms, is_pseudonym
from evidence_kit.redact.variants import KnownValue, variants


class Redactor:
    """A matcher over fixed known values and the pseudonyms it names them with (as the redactor pairs them)."""

    def __init__(self, *known: KnownValue, key: bytes | None = None):
        self.matcher = Matcher(known)
        self.pseudonyms = Pseudonyms(key)
        self.pseudonyms.reserve(self.matcher.table)

    def redact(self, text):
        return self.matcher.redact(text, self.pseudonyms)

    def leaks(self, text):
        return self.matcher.leaks(text)


CAUGHT = [
    ("gpu", "on GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e now"),
    ("gpu", "MIG-GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e/1/0"),
    ("uuid", "id=123e4567-e89b-12d3-a456-426614174000"),
    ("hex", "container 9d4c7e2a1b3f"),
    ("hex", "commit 3f9c2a7 merged"),
    ("hex", "sha256:c0ffee5eed1234567890abcdef0123456789abcdef0123456789abcdef012345"),
    ("path", "weights at /data/team/ckpt-final/model.safetensors"),
    ("path", "cache ~/.cache/huggingface"),
    ("path", r"C:\Users\someone\models"),
    ("url", "see https://internal.example.net/x?y=1."),
    ("host", "ssh node3.cluster.acme.internal"),
    ("ip", "bound to 10.1.2.3:80"),
    ("ip", "peer fe80::1c2d:3e4f:5a6b:7c8d"),
    ("mac", "ether 02:42:ac:11:00:03"),
    ("email", "mail ops@acme-corp.com"),
    ("token", "Authorization: Bearer abcdefghijklmnop"),
    ("token", "key sk-abcdefghijklmnop1234"),
    ("serial", "Serial Number : 1652020012345"),
    ("host", '"Hostname": "buildbox"'),
]

LEFT_ALONE = [
    "vLLM API server version 0.11.1",
    "KV cache size: 1330579 tokens",
    "budget ~1.234567e+16 bytes",
    "2026-11-01T09:00:00Z took 4.958 s",
    "Resolved architecture: LlamaForCausalLM (Qwen3 family, flash_attn, bf16)",
    "run r1-8192-c4 index 0",
    "Bus Id : 00000000:01:00.0",
    "journals/01-original-before.jsonl",
    "model.safetensors and config.json",
    "from vllm.model_executor.models.llama import LlamaModel",
    "listening on 127.0.0.1 and 0.0.0.0",
    "decade deadbeef effaced",  # only hex letters: words, not fingerprints
    "at 10:23:45.123 the queue held 12",
    "/usr/lib/python3.11/site-packages/vllm/engine.py",
]


@pytest.mark.parametrize("cls, text", CAUGHT)
def test_detector_catches(cls, text):
    matcher = Redactor()
    hits = matcher.leaks(text)
    assert cls in {hit.cls for hit in hits}, hits
    out, counts = matcher.redact(text)
    assert counts[cls] >= 1
    matcher.matcher.for_scanning(())  # the output is redacted text: its pseudonyms are pseudonyms
    assert matcher.leaks(out) == []


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_public_text_is_left_alone(text):
    matcher = Redactor()
    assert matcher.leaks(text) == []
    assert matcher.redact(text)[0] == text


def test_model_variants_share_one_pseudonym():
    matcher = Redactor(KnownValue("model", "Acme-Labs/Falcon-Secret-70B"))
    out, _ = matcher.redact("a acme-labs/falcon-secret-70b b models--Acme-Labs--Falcon-Secret-70B c FALCON-SECRET-70B")
    assert out == "a model-1 b model-1 c model-1"
    assert matcher.redact("org ACME-LABS only")[0] == "org org-1 only"
    assert matcher.redact("url acme-labs%2Ffalcon-secret-70b")[0] == "url model-1"


def test_host_short_name_domain_and_embedded_ip():
    matcher = Redactor(KnownValue("host", "ip-10-0-3-17.ec2.internal"))
    assert matcher.redact("ip-10-0-3-17 in ec2.internal")[0] == "host-1 in domain-1"
    assert matcher.leaks("reached 10.0.3.17") != []


def test_image_registry_and_short_forms():
    found = {v.text for v in variants(KnownValue("image", "registry.acme.internal:5000/inference/vllm-fork:v0.11.1-acme3"))}
    assert {"registry.acme.internal:5000", "registry.acme.internal", "inference/vllm-fork", "vllm-fork", "v0.11.1-acme3"} <= found
    revision = "3f9c2a7d4e1b8c6a0f5d2e9b7a4c1d8e6f3a2b5c"
    found = {v.text for v in variants(KnownValue("revision", revision))}
    assert {revision, revision[:7], revision[:12]} <= found


def test_short_values_match_whole_words_only():
    matcher = Redactor(KnownValue("user", "alice"))
    assert matcher.redact("alice logged in, malice did not")[0] == "user-1 logged in, malice did not"


def test_public_words_are_never_variants():
    texts = {v.text.lower() for v in variants(KnownValue("path", "/data/models/config.json"))}
    assert "models" not in texts and "data" not in texts


def test_pseudonyms_are_recognised_and_never_hex():
    keyed = Pseudonyms(b"k" * 32)
    name = keyed.name("gpu", "GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e")
    assert is_pseudonym(name) and name == keyed.name("gpu", "gpu-5B1C2D3E-4F5A-6B7C-8D9E-0F1A2B3C4D5E")
    assert not any(c in "abcdef0123456789" for c in name.split("-", 1)[1])
    assert Matcher().leaks(f"on {name}") == []


def test_path_parts_that_identify_are_hunted_and_common_folder_names_are_not():
    found = {v.text for v in variants(KnownValue("path", "/work/acme-secret/.venv/bin/python3.11"))}
    assert {"/work/acme-secret/.venv/bin/python3.11", "acme-secret"} <= found
    assert not {"work", ".venv", "bin", "python3.11"} & found


def test_a_command_line_is_hunted_whole_and_by_each_path_in_it():
    command = "/srv/acme/venv/bin/python -m vllm.entrypoints.openai.api_server --model /mnt/w/acme-70b --port 8011"
    found = {v.text for v in variants(KnownValue("path", command))}
    assert {command, "/srv/acme/venv/bin/python", "/mnt/w/acme-70b", "acme", "acme-70b"} <= found
    assert not {"-m", "--port", "8011", "bin", "python"} & found
    matcher = Redactor(KnownValue("path", command))
    out, _ = matcher.redact("started: " + command + "; the weights in /mnt/w/acme-70b; work on bin")
    assert "acme" not in out and out.endswith("; work on bin")


@pytest.mark.parametrize(
    ("known", "other"),
    [
        (KnownValue("ip", "10.20.30.2"), "10.20.30.23"),
        (KnownValue("ip", "10.20.30.2"), "110.20.30.2"),
        (KnownValue("host", "gpu-node-1.lab.acme-corp.internal"), "gpu-node-17"),
        (KnownValue("revision", "3f9c2a7d4e1b8c6a"), "3f9c2a7d4e1b8c6a0f5d2e9b"),
    ],
)
def test_a_known_value_inside_a_longer_value_does_not_lend_it_its_pseudonym(known, other):
    """10.20.30.23 is not 10.20.30.2 followed by 3: it was redacted to ``ip-1`` plus ``3`` (which reads
    as the pseudonym ip-13), leaking the digit and giving two addresses one identity."""
    matcher = Redactor(known, key=b"fabricated-test-key-0123456789abcdef")
    own, _ = matcher.redact(known.value.split(".")[0] if known.cls == "host" else known.value)
    out, counts = matcher.redact(f"to {other}:80 ok")
    assert out.startswith("to ") and out.endswith(":80 ok")
    pseudonym = out[3:-6]
    assert is_pseudonym(pseudonym) and pseudonym != own, out
    assert sum(counts.values()) == 1
    assert matcher.redact(other)[0] == pseudonym  # the longer value is now known in its own right
    scanner = Matcher([known])
    assert scanner.leaks(other) and scanner.leaks(other)[0].cls == known.cls


@pytest.mark.parametrize("host", ["nas.home.arpa", "gpu-box.corp.test", "node7.example", "sim-host-01.simulated.invalid"])
def test_special_use_domains_are_hosts(host):
    matcher = Redactor()
    text = f"connected to {host} at 09:00"
    hits = matcher.leaks(text)
    assert [(text[h.start : h.end], h.cls) for h in hits] == [(host, "host")]
    out, _ = matcher.redact(text)
    assert host not in out and "arpa" not in out and matcher.leaks(out) == []


def test_a_reverse_dns_name_goes_whole_as_the_address_it_names():
    matcher = Redactor()
    out, counts = matcher.redact("connected to 17.3.0.10.in-addr.arpa at 09:00, then 10.0.3.17")
    assert out == "connected to ip-1 at 09:00, then ip-1" and counts == {"ip": 2}


def test_the_schemas_own_placeholder_host_is_public():
    assert Redactor().leaks("schemas live at evidence-kit.invalid") == []
