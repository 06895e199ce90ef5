"""DSSE v1 envelopes: the pre-authentication encoding, signing, and verifying in the right order.

The signature covers ``PAE(payloadType, payload)``, never the raw body nor its
base64 text, so a signature made for one payload type can never be replayed as
another. A verifier checks the signature first, then the payload type, and only
then hands out the payload: exactly the bytes that were verified, never a
re-serialisation of them.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .keys import key_id

__all__ = [
    "IN_TOTO_PAYLOAD_TYPE",
    "EnvelopeError",
    "Verified",
    "pae",
    "sign_envelope",
    "parse_envelope",
    "verify_envelope",
    "verify_signature",
    "b64decode",
]

IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"


class EnvelopeError(Exception):
    """The envelope is malformed, its signature does not verify, or its payload type is wrong."""


@dataclass(frozen=True)
class Verified:
    """What a verified envelope gives: the exact payload bytes and who signed them."""

    payload: bytes
    payload_type: str
    keyid: str


def pae(payload_type: str, payload: bytes) -> bytes:
    """``DSSEv1 SP LEN(type) SP type SP LEN(body) SP body``, lengths in ASCII decimal bytes."""
    type_bytes = payload_type.encode("utf-8")
    return b" ".join([b"DSSEv1", str(len(type_bytes)).encode(), type_bytes, str(len(payload)).encode(), payload])


def b64decode(text: str) -> bytes:
    """Decode standard or URL-safe base64, padded or not (DSSE asks verifiers to accept both)."""
    if not isinstance(text, str):
        raise EnvelopeError("expected base64 text")
    cleaned = text.strip()
    cleaned += "=" * (-len(cleaned) % 4)
    alphabet_urlsafe = "-" in cleaned or "_" in cleaned
    if alphabet_urlsafe and ("+" in cleaned or "/" in cleaned):
        raise EnvelopeError("base64 mixes the standard and URL-safe alphabets")
    try:
        if alphabet_urlsafe:
            return base64.b64decode(cleaned.replace("-", "+").replace("_", "/"), validate=True)
        return base64.b64decode(cleaned, validate=True)
    except (binascii.Error, ValueError):
        raise EnvelopeError("not valid base64") from None


def sign_envelope(payload: bytes, payload_type: str, key: Ed25519PrivateKey) -> dict[str, Any]:
    """A DSSE envelope holding ``payload``, signed over its PAE with ``key``."""
    if not payload_type.isascii():
        raise ValueError("payloadType must be ASCII")
    signature = key.sign(pae(payload_type, payload))
    return {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": payload_type,
        "signatures": [{"keyid": key_id(key.public_key()), "sig": base64.b64encode(signature).decode("ascii")}],
    }


def parse_envelope(data: bytes) -> dict[str, Any]:
    """Parse envelope JSON and check its shape (not its signature)."""
    try:
        envelope = json.loads(data)
    except (ValueError, RecursionError) as err:
        raise EnvelopeError(f"not valid JSON ({err})") from None
    if not isinstance(envelope, dict):
        raise EnvelopeError("not a JSON object")
    for field, kind in (("payload", str), ("payloadType", str), ("signatures", list)):
        if not isinstance(envelope.get(field), kind):
            raise EnvelopeError(f"field '{field}' is missing or not a {kind.__name__}")
    if not envelope["signatures"]:
        raise EnvelopeError("no signatures")
    for i, sig in enumerate(envelope["signatures"]):
        if not isinstance(sig, dict) or not isinstance(sig.get("sig"), str):
            raise EnvelopeError(f"signatures[{i}] has no 'sig' text")
    return envelope


def verify_signature(envelope: dict[str, Any], keys: Sequence[Ed25519PublicKey]) -> Verified:
    """Check a signature of ``envelope`` verifies over its PAE with one of ``keys``.

    The PAE is built from the payload type *as written in the envelope*, so a
    changed type breaks the signature. A ``keyid`` is only a hint: every
    signature is tried against every key, so a wrong or missing hint can neither
    make a good signature fail nor a bad one pass. The payload type is not
    judged here; :func:`verify_envelope` does both, in order.
    """
    payload = b64decode(envelope["payload"])
    payload_type = envelope["payloadType"]
    message = pae(payload_type, payload)
    signer: str | None = None
    for sig in envelope["signatures"]:
        try:
            signature = b64decode(sig["sig"])
        except EnvelopeError:
            continue
        for key in keys:
            try:
                key.verify(signature, message)
            except InvalidSignature:
                continue
            signer = key_id(key)
            break
        if signer:
            break
    if signer is None:
        hints = ", ".join(str(s.get("keyid") or "?")[:16] for s in envelope["signatures"])
        raise EnvelopeError(f"no signature verifies with the given key (signature key id hints: {hints})")
    return Verified(payload=payload, payload_type=payload_type, keyid=signer)


def verify_envelope(envelope: dict[str, Any], keys: Sequence[Ed25519PublicKey], expected_type: str = IN_TOTO_PAYLOAD_TYPE) -> Verified:
    """Verify ``envelope`` with any of ``keys``; return the verified payload.

    Order matters: the signature over the PAE first, then the payload type, and
    only then is the payload handed out (the exact verified bytes).
    """
    verified = verify_signature(envelope, keys)
    if verified.payload_type != expected_type:
        raise EnvelopeError(f"payloadType is {verified.payload_type!r}, expected {expected_type!r}")
    return verified
