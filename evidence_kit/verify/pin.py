"""Whom a verification trusts: the publisher's key pinned by the auditor, or nobody.

A signature only says who signed when the auditor brings the key from outside
the folder: the ``signing.pub`` a folder ships can be replaced together with the
signature by anyone who can change the folder. So a key is pinned either as a
PEM file (``--key``) that does not live inside the tree being verified, or as
its key id (``--key-id``: sha256 of the raw 32-byte Ed25519 public key, the
fingerprint a publisher prints in a README or release note), which the folder's
own ``signing.pub`` must then match.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ..attest.keys import PUBLIC_KEY_NAME, key_id, load_public_key
from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..attest.tree import walk_tree
from ..errors import BadInput

__all__ = ["Pin", "UNPINNED", "parse_key_id", "load_pin", "refuse_key_inside"]

KEY_ID_DIGITS = 64
_HEX = re.compile(r"[0-9a-fA-F]+")
# Files that make a folder above the target a published tree the target belongs to.
_PUBLISHED_MARKERS = (MANIFEST_NAME, ENVELOPE_NAME, PUBLIC_KEY_NAME)


@dataclass(frozen=True)
class Pin:
    """The auditor's pin: a public key (``--key``), a key id (``--key-id``), both, or neither."""

    key: Ed25519PublicKey | None = None
    key_id: str | None = None
    how: str = ""  # "--key", "--key-id" or "--key and --key-id", as the report names it

    @property
    def pinned(self) -> bool:
        """Whether the auditor named the publisher's key at all."""
        return self.key_id is not None

    @classmethod
    def of_key(cls, key: Ed25519PublicKey) -> Pin:
        """A pin on ``key``, as ``--key`` makes one (for callers that hold the key itself)."""
        return cls(key=key, key_id=key_id(key), how="--key")

    def as_dict(self) -> dict[str, str | None]:
        """The pin as the JSON report carries it."""
        return {"by": self.how or None, "key_id": self.key_id}


UNPINNED = Pin()


def parse_key_id(text: str) -> str:
    """A key id as given to ``--key-id``: exactly 64 hex digits, either case; returned lowercase.

    A shortened id (the 16 digits a report shows) is refused: a prefix is not a
    pin, and a collision on 64 bits is within an attacker's reach.
    """
    hexish = bool(_HEX.fullmatch(text))
    if len(text) != KEY_ID_DIGITS or not hexish:
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise BadInput(
            f"--key-id {shown!r}: expected a key id of {KEY_ID_DIGITS} hex digits (sha256 of the raw Ed25519 public key, "
            f"as keygen and build --sign print it), got {len(text)} character(s)" + ("" if hexish else " that are not all hex digits")
        )
    return text.lower()


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _published_trees(target: Path) -> list[str]:
    """The target, every published folder holding it (one with a manifest, an envelope or a key), and the
    site folder of any of them that is a site's ``public/`` (the site folder ships its sources beside it).

    A folder above is not a published tree merely for holding ``mkdocs.yml`` or ``site/``: a repository
    root does, and an auditor may keep the publisher's key elsewhere in it.
    """
    real = os.path.realpath(target)
    trees = [os.path.abspath(target), real]
    trees += [str(folder) for folder in Path(real).parents if any((folder / name).is_file() for name in _PUBLISHED_MARKERS)]
    for tree in list(trees):
        folder = Path(tree)
        if folder.name == "public" and ((folder.parent / "mkdocs.yml").is_file() or (folder.parent / "site").is_dir()):
            trees.append(str(folder.parent))
    return trees


def _same_file_inside(key_path: Path, tree: str) -> bool:
    """Whether a hard link of the key file sits in ``tree`` (only looked for when the key has several links)."""
    try:
        info = key_path.stat()
    except OSError:
        return False  # loading the key reports it
    if info.st_nlink < 2:
        return False
    for rel, _ in walk_tree(Path(tree)):
        try:
            other = os.lstat(os.path.join(tree, rel))
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            return True
    return False


def refuse_key_inside(key_path: Path, target: Path) -> None:
    """Raise :class:`BadInput` when the ``--key`` file is part of what is being verified.

    Judged by the path as given, by the path with every symlink resolved, and by
    hard links, against the target and any published tree holding it: a key the
    site ships proves nothing, since whoever can change the site can change it too.
    """
    key_paths = [os.path.abspath(key_path), os.path.realpath(key_path)]
    for tree in _published_trees(target):
        if any(_within(path, tree) for path in key_paths) or _same_file_inside(key_path, tree):
            raise BadInput(
                f"is inside {tree}, the tree being verified: a key the folder ships proves nothing (whoever can "
                "change the folder can replace it and re-sign); pin a key obtained from the publisher by another "
                "channel, or its key id with --key-id",
                key_path,
            )


def load_pin(key_path: Path | None, key_id_text: str | None, target: Path | None) -> Pin:
    """The pin from ``--key`` and ``--key-id`` (either, both or neither); ``target`` is None for a URL.

    Both given must name the same key. Bad input raises :class:`BadInput` (exit 2).
    """
    wanted = parse_key_id(key_id_text) if key_id_text is not None else None
    if key_path is None:
        return Pin(key_id=wanted, how="--key-id") if wanted else UNPINNED
    if target is not None and target.exists():
        refuse_key_inside(key_path, target)
    key = load_public_key(key_path)
    kid = key_id(key)
    if wanted is not None and wanted != kid:
        raise BadInput(f"is key id {kid}, but --key-id names {wanted}: they must pin the same key", key_path)
    return Pin(key=key, key_id=kid, how="--key and --key-id" if wanted else "--key")
