"""DSSE and Ed25519 against published test vectors, and the verifier mistakes seen in the wild."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_kit.attest.dsse import (
    IN_TOTO_PAYLOAD_TYPE,
    EnvelopeError,
    b64decode,
    pae,
    sign_envelope,
    verify_envelope,
)
from evidence_kit.attest.keys import key_id

# RFC 8032 section 7.1, Ed25519 TEST 1, 2 and 3: (secret seed, public key, message, signature), hex.
RFC8032 = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]


def test_pae_vector() -> None:
    assert pae("http://example.com/HelloWorld", b"hello world") == b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"


def test_pae_counts_bytes_not_characters() -> None:
    assert pae("t", "é".encode()) == b"DSSEv1 1 t 2 " + "é".encode()


@pytest.mark.parametrize("seed, public, message, signature", RFC8032)
def test_rfc8032_vectors(seed: str, public: str, message: str, signature: str) -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
    raw_public = key.public_key().public_bytes_raw()
    assert raw_public.hex() == public
    assert key.sign(bytes.fromhex(message)).hex() == signature
    key.public_key().verify(bytes.fromhex(signature), bytes.fromhex(message))


def _key(n: int = 1) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(RFC8032[n][0]))


def test_round_trip_and_deterministic() -> None:
    key = _key()
    envelope = sign_envelope(b'{"a":1}', IN_TOTO_PAYLOAD_TYPE, key)
    assert envelope == sign_envelope(b'{"a":1}', IN_TOTO_PAYLOAD_TYPE, key)
    verified = verify_envelope(envelope, [key.public_key()])
    assert verified.payload == b'{"a":1}'
    assert verified.keyid == key_id(key.public_key()) == envelope["signatures"][0]["keyid"]


def test_signature_over_raw_body_is_rejected() -> None:
    key = _key()
    body = b'{"a":1}'
    envelope = {
        "payload": base64.b64encode(body).decode(),
        "payloadType": IN_TOTO_PAYLOAD_TYPE,
        "signatures": [{"keyid": "", "sig": base64.b64encode(key.sign(body)).decode()}],
    }
    with pytest.raises(EnvelopeError, match="no signature verifies"):
        verify_envelope(envelope, [key.public_key()])


def test_signature_over_pae_of_base64_text_is_rejected() -> None:
    key = _key()
    body = b'{"a":1}'
    text = base64.b64encode(body)
    envelope = {
        "payload": text.decode(),
        "payloadType": IN_TOTO_PAYLOAD_TYPE,
        "signatures": [{"keyid": "", "sig": base64.b64encode(key.sign(pae(IN_TOTO_PAYLOAD_TYPE, text))).decode()}],
    }
    with pytest.raises(EnvelopeError):
        verify_envelope(envelope, [key.public_key()])


def test_changed_payload_type_breaks_the_signature() -> None:
    key = _key()
    envelope = sign_envelope(b'{"a":1}', IN_TOTO_PAYLOAD_TYPE, key)
    envelope["payloadType"] = "application/json"
    with pytest.raises(EnvelopeError, match="no signature verifies"):
        verify_envelope(envelope, [key.public_key()])


def test_validly_signed_other_payload_type_is_rejected() -> None:
    key = _key()
    envelope = sign_envelope(b'{"a":1}', "application/json", key)
    with pytest.raises(EnvelopeError, match="payloadType"):
        verify_envelope(envelope, [key.public_key()])


def test_wrong_key_and_misleading_keyid() -> None:
    envelope = sign_envelope(b"x", IN_TOTO_PAYLOAD_TYPE, _key(1))
    with pytest.raises(EnvelopeError):
        verify_envelope(envelope, [_key(2).public_key()])
    # The keyid is a hint only: naming the other key changes nothing either way.
    envelope["signatures"][0]["keyid"] = key_id(_key(2).public_key())
    assert verify_envelope(envelope, [_key(1).public_key()]).payload == b"x"


def test_payload_changed_after_signing_is_rejected() -> None:
    key = _key()
    envelope = sign_envelope(b'{"a":1}', IN_TOTO_PAYLOAD_TYPE, key)
    envelope["payload"] = base64.b64encode(b'{"a":2}').decode()
    with pytest.raises(EnvelopeError):
        verify_envelope(envelope, [key.public_key()])


def test_urlsafe_and_unpadded_base64_accepted() -> None:
    data = bytes(range(250, 256)) + b"\xfb\xff"
    assert b64decode(base64.urlsafe_b64encode(data).decode().rstrip("=")) == data
    assert b64decode(base64.b64encode(data).decode()) == data
    with pytest.raises(EnvelopeError):
        b64decode("ab+_")
    with pytest.raises(EnvelopeError):
        b64decode("not base64!")


def test_envelope_json_shape() -> None:
    envelope = sign_envelope(b"x", IN_TOTO_PAYLOAD_TYPE, _key())
    assert sorted(envelope) == ["payload", "payloadType", "signatures"]
    assert json.loads(json.dumps(envelope)) == envelope
