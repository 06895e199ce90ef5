"""Ed25519 signing keys: generate, save, load, and name them by key id.

A key id is the sha256 of the raw 32-byte public key, in hex: anyone holding the
public key can recompute it, and it says nothing about the private key.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import BadInput
from ..fsutil import atomic_write, read_bounded

__all__ = [
    "MAX_KEY_BYTES",
    "PRIVATE_KEY_NAME",
    "PUBLIC_KEY_NAME",
    "generate_keypair",
    "key_id",
    "load_private_key",
    "load_public_key",
    "public_key_pem",
    "private_key_spellings",
    "parse_public_key",
]

PRIVATE_KEY_NAME = "signing.key"
PUBLIC_KEY_NAME = "signing.pub"
MAX_KEY_BYTES = 64 << 10  # the most a key file may hold, read from disk or over HTTP (a PEM key is a few hundred)


def key_id(public_key: Ed25519PublicKey) -> str:
    """sha256 of the raw 32-byte public key, lowercase hex."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def public_key_pem(public_key: Ed25519PublicKey) -> bytes:
    """The public key as PEM (SubjectPublicKeyInfo), the form ``signing.pub`` holds."""
    return public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def generate_keypair(folder: Path) -> tuple[Path, Path, str]:
    """Write a new key pair into ``folder``; return (private path, public path, key id).

    The private key file is created with mode 0600 before any byte is written to
    it, so it is never readable by others, not even for a moment. Existing keys
    are never overwritten.
    """
    folder.mkdir(parents=True, exist_ok=True)
    private_path, public_path = folder / PRIVATE_KEY_NAME, folder / PUBLIC_KEY_NAME
    for path in (private_path, public_path):
        if path.exists():
            raise BadInput("a key already exists here; refusing to overwrite it", path)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)  # the umask could only narrow it, but be explicit
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        private_path.unlink(missing_ok=True)
        raise
    atomic_write(public_path, public_key_pem(key.public_key()), mode=0o644)  # the public half is for anyone to read
    return private_path, public_path, key_id(key.public_key())


def _read_bytes(path: Path, what: str) -> bytes:
    """A key file's bytes, at most :data:`MAX_KEY_BYTES` of them (a PEM key is a few hundred)."""
    try:
        data = read_bounded(path, MAX_KEY_BYTES)
    except FileNotFoundError:
        raise BadInput(f"{what} not found", path) from None
    except IsADirectoryError:
        raise BadInput(f"is a folder, expected a {what} file", path) from None
    except OSError as err:
        raise BadInput(f"cannot read {what} ({err.strerror})", path) from None
    if data is None:
        raise BadInput(f"larger than {MAX_KEY_BYTES >> 10} KiB: not a {what} file", path)
    return data


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """Load a PEM Ed25519 private key; refuse one that others can read (like ssh does)."""
    data = _read_bytes(path, "private key")
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise BadInput(f"private key is readable by others (mode {mode:04o}); run: chmod 600 {path}", path)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as err:
        raise BadInput(f"not a PEM private key without passphrase ({err})", path) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadInput("not an Ed25519 private key", path)
    return key


def private_key_spellings(key: Ed25519PrivateKey) -> list[bytes]:
    """The ways a private key's secret can be pasted into a page: its PEM body (one line for
    Ed25519), and its raw 32-byte seed in hex and in base64 (standard and URL-safe, unpadded)."""
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    body = b"".join(line for line in pem.splitlines() if not line.startswith(b"-----"))
    return [body, seed.hex().encode(), seed.hex().upper().encode(), base64.b64encode(seed).rstrip(b"="), base64.urlsafe_b64encode(seed).rstrip(b"=")]


_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----")


def parse_public_key(data: bytes, where: Path | str) -> Ed25519PublicKey:
    """Parse a PEM Ed25519 public key, or raise :class:`BadInput` naming ``where``.

    The file must hold exactly one PEM block and nothing else: a PEM reader takes the first block it
    finds, so a file holding two keys (or text around one) would pin whichever key came first while
    the auditor believes it names another."""
    blocks = _PEM_BLOCK.findall(data)
    if len(blocks) > 1:
        raise BadInput(f"holds {len(blocks)} PEM blocks: a key file holds exactly one public key", where)
    stripped = data.strip()
    if blocks and not (stripped.startswith(b"-----BEGIN ") and stripped.endswith(b"-----") and stripped.count(b"-----END ") == 1):
        raise BadInput("holds text besides its PEM block: a key file holds exactly one public key and nothing else", where)
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise BadInput("not a PEM public key", where) from None
    if not isinstance(key, Ed25519PublicKey):
        raise BadInput("not an Ed25519 public key", where)
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """Load a PEM Ed25519 public key file."""
    return parse_public_key(_read_bytes(path, "public key"), path)
