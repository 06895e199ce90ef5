"""Adversary v9: a JSON Web Key's private members as more real tools write them, through the real redactor and scan.

Session 8 found a JWK's ``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi`` and ``k`` by their value's shape after the
name, in JSON, escaped JSON, a Python dict and YAML. These are the spellings it did not see: Ruby's and
Perl's ``=>`` (a Rails log's ``Parameters: {"jwk"=>{…}}``), PHP's ``print_r`` (``[d] => …``), the base64 of
the JSON a Kubernetes Secret's ``data`` holds, and a key written with a ``\\u`` escape. The spellings that
already held (URL-encoded, Node's ``util.inspect``, ``"d" : …``, TOML) are kept here as guards.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_kit.redact import redact_bundle, scan_tree
from tests.redact import corpus
from tests.redact.conftest import KEY
from tests.redact.test_leak_classes import _texts, plant


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwk() -> dict[str, str]:
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes(ser.Encoding.Raw, ser.PrivateFormat.Raw, ser.NoEncryption())
    public = key.public_key().public_bytes(ser.Encoding.Raw, ser.PublicFormat.Raw)
    return {"kty": "OKP", "crv": "Ed25519", "d": _b64url(seed), "x": _b64url(public)}


def _spelled(name: str, jwk: dict[str, str]) -> tuple[str, str]:
    """(file, content) of ``jwk`` as the tool ``name`` writes it."""
    if name == "rails":  # Ruby's Hash#inspect before 3.4, as Rails logs the parameters of a request
        return "logs/rails.log", 'Parameters: {"jwk"=>{' + ", ".join(f'"{k}"=>"{v}"' for k, v in jwk.items()) + "}}\n"
    if name == "ruby34":  # Ruby 3.4's Hash#inspect
        return "logs/ruby.log", "jwk: {" + ", ".join(f'"{k}" => "{v}"' for k, v in jwk.items()) + "}\n"
    if name == "perl":  # Data::Dumper
        return "logs/perl.log", "$VAR1 = {\n" + "".join(f"          '{k}' => '{v}',\n" for k, v in jwk.items()) + "        };\n"
    if name == "php":  # print_r
        return "logs/php.log", "Array\n(\n" + "".join(f"    [{k}] => {v}\n" for k, v in jwk.items()) + ")\n"
    if name == "k8s-secret":  # kubectl get secret -o yaml: the file's JSON in base64
        encoded = base64.b64encode(json.dumps(jwk, separators=(",", ":")).encode()).decode()
        return "logs/secret.yaml", f"apiVersion: v1\nkind: Secret\ndata:\n  signing.jwk: {encoded}\n"
    if name == "k8s-secret-jwks":  # a pretty-printed JWKS file, base64url without padding
        encoded = _b64url(json.dumps({"keys": [jwk]}, indent=2).encode())
        return "logs/jwks-secret.yaml", f"data:\n  jwks.json: {encoded}\n"
    if name == "u-escaped-key":  # a JSON file whose key "d" is written "\u0064"
        return "logs/key.json", '{"kty": "OKP", "\\u0064": "' + jwk["d"] + '", "x": "' + jwk["x"] + '"}\n'
    if name == "url-encoded":
        return "logs/access.log", f"GET /callback?jwk={quote(json.dumps(jwk))} 200\n"
    if name == "node-inspect":
        return "logs/node.log", "{ " + ", ".join(f"{k}: '{v}'" for k, v in jwk.items()) + " }\n"
    if name == "spaced-colon":
        return "logs/spaced.log", "{" + ", ".join(f'"{k}" : "{v}"' for k, v in jwk.items()) + "}\n"
    assert name == "toml"
    return "logs/key.toml", "[jwk]\n" + "".join(f'{k} = "{v}"\n' for k, v in jwk.items())


SPELLINGS = [
    "rails",
    "ruby34",
    "perl",
    "php",
    "k8s-secret",
    "k8s-secret-jwks",
    "u-escaped-key",
    "url-encoded",
    "node-inspect",
    "spaced-colon",
    "toml",
]


@pytest.mark.parametrize("name", SPELLINGS)
def test_a_jwk_private_member_is_found_and_redacted_however_written(tmp_path: Path, name: str) -> None:
    jwk = _jwk()
    rel, content = _spelled(name, jwk)
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={rel: content})
    assert [f for f in scan_tree(raw) if f.file == rel and f.cls == "token"], f"the scan finds the key in {rel}"
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    out = _texts(result.out)
    assert jwk["d"] not in out and jwk["d"][:24] not in out
    if name.startswith("k8s"):
        encoded = content.rsplit(": ", 1)[1].strip()
        assert encoded[:40] not in out, "the base64 of the key is replaced whole"
    else:
        assert jwk["x"] in out or quote(jwk["x"]) in out, "the public half stays"


def test_base64_json_without_a_private_member_stays(tmp_path: Path) -> None:
    """A public JWK, a JWT's header and a DSSE-like payload in base64 are no secret: they are left byte for byte."""
    jwk = _jwk()
    public = base64.b64encode(json.dumps({"kty": "OKP", "crv": "Ed25519", "x": jwk["x"]}).encode()).decode()
    statement = base64.b64encode(
        json.dumps({"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": "index.html", "digest": {"sha256": "ab" * 32}}]}).encode()
    ).decode()
    text = f"public {public}\npayload {statement}\n"
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/public.log": text})
    assert not [f for f in scan_tree(raw) if f.file == "logs/public.log"]
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert (result.out / "logs" / "public.log").read_text() == text
