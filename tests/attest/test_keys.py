"""keygen: an Ed25519 pair, private key mode 0600, public key 0644, key id = sha256 of the raw public key."""

from __future__ import annotations

import base64
import hashlib
import stat
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from evidence_kit.attest.keys import generate_keypair, load_private_key, load_public_key, private_key_spellings


def test_keygen_writes_pair_and_prints_key_id(run_cli, tmp_path: Path) -> None:
    result = run_cli("keygen", "--out", tmp_path / "k")
    assert result.code == 0, result.err
    private, public = tmp_path / "k" / "signing.key", tmp_path / "k" / "signing.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(public.stat().st_mode) == 0o644  # the public half is for anyone to read
    raw = load_public_key(public).public_bytes_raw()
    kid = hashlib.sha256(raw).hexdigest()
    assert f"key id:      {kid}" in result.out
    assert "-----BEGIN PUBLIC KEY-----" in result.out
    assert load_private_key(private).public_key().public_bytes_raw() == raw


def test_keygen_never_overwrites(run_cli, tmp_path: Path) -> None:
    assert run_cli("keygen", "--out", tmp_path).code == 0
    before = (tmp_path / "signing.key").read_bytes()
    again = run_cli("keygen", "--out", tmp_path)
    assert again.code == 2 and "refusing to overwrite" in again.err
    assert (tmp_path / "signing.key").read_bytes() == before


def test_private_key_readable_by_others_is_refused(run_cli, tmp_path: Path, reference_decision: Path) -> None:
    assert run_cli("keygen", "--out", tmp_path).code == 0
    (tmp_path / "signing.key").chmod(0o644)
    from evidence_kit.attest import sign_tree
    from evidence_kit.errors import BadInput

    try:
        sign_tree(reference_decision, tmp_path / "signing.key")
    except BadInput as err:
        assert "chmod 600" in str(err)
    else:
        raise AssertionError("a world-readable private key was used")
    assert not (reference_decision / "manifest.dsse.json").exists()


def test_private_key_spellings_are_the_secret_as_it_can_be_pasted(tmp_path: Path) -> None:
    """The PEM body and the raw seed in hex (either case) and base64 (both alphabets): every one of them
    recovers the key, and none is a spelling of the public key."""
    private, public, _ = generate_keypair(tmp_path)
    key = load_private_key(private)
    seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    spellings = private_key_spellings(key)
    assert private.read_bytes().splitlines()[1] in spellings
    assert base64.b64decode(spellings[0]).endswith(seed)
    assert {bytes.fromhex(s.decode()) for s in spellings[1:3]} == {seed}
    assert base64.b64decode(spellings[3] + b"=") == seed and base64.urlsafe_b64decode(spellings[4] + b"=") == seed
    assert not any(s in public.read_bytes() for s in spellings)
