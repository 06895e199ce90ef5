"""Adversary v7: private keys spelled as real tools write them, through the real redactor and scan.

Each key is generated here (real Ed25519 / RSA via cryptography); a bundle holding it must come out with no
run of its body left (redact_bundle), and the scan of a folder holding it must find it (scan_tree).
"""

from __future__ import annotations

import base64
import json
import re
import textwrap
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_kit.redact import redact_bundle, scan_tree
from tests.redact import corpus
from tests.redact.conftest import KEY
from tests.redact.test_leak_classes import _texts, plant


def _ed_der() -> bytes:
    return Ed25519PrivateKey.generate().private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption())


def _ed_der_url() -> bytes:
    """An Ed25519 key whose base64url spelling differs from its base64 one (holds a '-' or '_')."""
    while True:
        der = _ed_der()
        if base64.b64encode(der) != base64.urlsafe_b64encode(der):
            return der


def _rsa_b64() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    return base64.b64encode(key.private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8, ser.NoEncryption())).decode()


def _pieces(b64: str) -> list[str]:
    """The body in 24-character pieces: none of them may survive (24 chars = 18 bytes of key)."""
    flat = b64.replace("\n", "")
    return [flat[i : i + 24] for i in range(0, len(flat) - 24, 12)]


def _leaked(out: Path, b64: str) -> list[str]:
    text = _texts(out)
    return [p for p in _pieces(b64) if p in text]


def _rsa_pem_json_escaped_slashes() -> tuple[str, str]:
    b64 = _rsa_b64()
    pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(textwrap.wrap(b64, 64)) + "\n-----END PRIVATE KEY-----\n"
    # PHP's json_encode, Jackson with ESCAPE_FORWARD_SLASHES, many Go/JS loggers: "/" written "\/".
    return json.dumps({"tls_key": "see below", "pem": pem}).replace("/", "\\/"), b64


def test_a_pem_key_in_json_with_escaped_slashes_is_not_left_in_pieces(tmp_path: Path) -> None:
    raw_json, b64 = _rsa_pem_json_escaped_slashes()
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/deploy.json": raw_json + "\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert not _leaked(result.out, b64)


def test_an_ed25519_pkcs8_body_in_base64url_is_redacted(tmp_path: Path) -> None:
    body = base64.urlsafe_b64encode(_ed_der_url()).decode()
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/keys.log": f"signer loaded {body} ok\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert body not in _texts(result.out) and not _leaked(result.out, body)
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "page.html").write_text(f"<p>{body}</p>")
    assert list(scan_tree(clean)), "the base64url body alone is found by the scan"


@pytest.mark.parametrize("spelling", ["crlf", "mime76", "indented"])
def test_pem_body_lines_without_their_header_are_redacted(tmp_path: Path, spelling: str) -> None:
    """The body lines of a key, without its BEGIN line (a log that cut it, a tool that prints the body): as
    `base64` wraps them (76 columns), as a Windows log ends them (CRLF), as YAML or Markdown indents them."""
    b64 = _rsa_b64()
    if spelling == "crlf":
        text = "key material:\r\n" + "\r\n".join(textwrap.wrap(b64, 64)) + "\r\n"
    elif spelling == "mime76":
        text = "key material:\n" + "\n".join(textwrap.wrap(b64, 76)) + "\n"
    else:
        text = "key material:\n" + "\n".join("    " + line for line in textwrap.wrap(b64, 64)) + "\n"
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/tls.log": text.encode()})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    text_out = _texts(result.out)
    full = [line for line in re.split(r"\r?\n", text) if len(line.strip()) >= 64 and line.strip() in text_out]
    assert not full, f"{len(full)} full body lines left"


def _jwk() -> tuple[dict[str, str], str]:
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes(ser.Encoding.Raw, ser.PrivateFormat.Raw, ser.NoEncryption())
    public = key.public_key().public_bytes(ser.Encoding.Raw, ser.PublicFormat.Raw)
    d = base64.urlsafe_b64encode(seed).decode().rstrip("=")
    x = base64.urlsafe_b64encode(public).decode().rstrip("=")
    return {"kty": "OKP", "crv": "Ed25519", "d": d, "x": x}, d


def _rsa_jwk() -> dict[str, str]:
    numbers = rsa.generate_private_key(public_exponent=65537, key_size=1024).private_numbers()

    def b64(n: int) -> str:
        return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, "big")).decode().rstrip("=")

    return {
        "kty": "RSA",
        "n": b64(numbers.public_numbers.n),
        "e": "AQAB",
        "d": b64(numbers.d),
        "p": b64(numbers.p),
        "q": b64(numbers.q),
        "dp": b64(numbers.dmp1),
        "dq": b64(numbers.dmq1),
        "qi": b64(numbers.iqmp),
    }


def _jwk_spellings() -> list[tuple[str, str, list[str]]]:
    """(file, content, private values) of a JWK as loggers and config files write one."""
    ed, d = _jwk()
    rsa_jwk = _rsa_jwk()
    rsa_private = [rsa_jwk[m] for m in ("d", "p", "q", "dp", "dq", "qi")]
    oct_key = base64.urlsafe_b64encode(bytes(range(7, 39))).decode().rstrip("=")
    return [
        ("logs/signer.log", f"loaded jwk {json.dumps(ed)}\n", [d]),
        ("logs/signer-pretty.log", "jwk:\n" + json.dumps(ed, indent=2) + "\n", [d]),
        ("logs/signer.jsonl", json.dumps({"msg": "key", "jwk": json.dumps(ed)}) + "\n", [d]),
        ("logs/signer-py.log", f"key={dict(ed)!r}\n", [d]),
        ("logs/keys.yaml", "keys:\n  - kty: OKP\n    crv: Ed25519\n    d: " + d + "\n", [d]),
        ("logs/jwks.json", json.dumps({"keys": [rsa_jwk]}, indent=1), rsa_private),
        ("logs/oct.json", json.dumps({"kty": "oct", "k": oct_key, "alg": "HS256"}), [oct_key]),
    ]


@pytest.mark.parametrize("index", range(7))
def test_a_jwk_private_key_in_a_log_is_redacted_and_found(tmp_path: Path, index: int) -> None:
    """RFC 7517/8037 private members ("d", RSA's "p", "q", "dp", "dq", "qi", a symmetric "k") are one- or
    two-letter names over any base64url: found by their value's shape after the name, in every spelling."""
    rel, content, private = _jwk_spellings()[index]
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={rel: content})
    assert [f for f in scan_tree(raw) if f.file == rel and f.cls == "token"], f"the scan finds the key in {rel}"
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    out = _texts(result.out)
    assert [v for v in private if v in out] == []
    assert [v[:24] for v in private if v[:24] in out] == []


def test_short_members_and_public_halves_of_a_jwk_stay(tmp_path: Path) -> None:
    """A JWK's public members are no secret, and a short value after a one-letter name is no key."""
    ed, _ = _jwk()
    text = f"jwk {json.dumps(ed)}\nq: 3\nd = 12.5 ms\np: abc\n"
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/pub.log": text})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    out = (result.out / "logs" / "pub.log").read_text()
    assert ed["x"] in out and "q: 3" in out and "d = 12.5 ms" in out and "p: abc" in out


@pytest.mark.parametrize(
    "rel, template",
    [
        ("logs/keys.md", "| kty | OKP |\n| d | {d} |\n"),  # a Markdown table of the key's members
        ("logs/form.html", '<input type="hidden" name="d" value="{d}">\n'),  # an HTML form field
    ],
)
def test_a_jwk_member_in_a_table_or_a_form_field_is_redacted(tmp_path: Path, rel: str, template: str) -> None:
    """Found in the final attack of session 8: a member's value after a table's "|" or as a form field's value."""
    _, d = _jwk()
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={rel: template.format(d=d)})
    assert [f for f in scan_tree(raw) if f.file == rel and f.cls == "token"]
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert d not in _texts(result.out) and d[:24] not in _texts(result.out)
