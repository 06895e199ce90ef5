"""Verify a served site by URL: download the manifest, envelope and every listed file, then verify the copy.

Only what the manifest lists is fetched, each into the path it names inside a
fresh temporary folder; a listed path that could land outside that folder is
never requested (the paths check then reports it). The copy is deleted afterwards.

Every body is streamed to disk, never held whole, and read no further than the
size the manifest lists for it (the manifest and envelope, which list no size of
their own, no further than :data:`MAX_SIGNING_BYTES`): a server that sends more,
before or after decompression (a gzip bomb), is cut off there and named in one
line, exit 2. A compressed body is decompressed by :mod:`zlib` with a bound on
every step, so no more than the listed size plus one chunk is ever produced.

With a pinned key, the listed sizes are trusted only once signed: the envelope must
verify with the pinned key over a statement listing ``manifest.json`` with the
sha256 of the manifest served, before any listed file is requested. Otherwise
nothing more is fetched and the verification of what was fetched fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from ..attest.dsse import EnvelopeError, parse_envelope, verify_envelope
from ..attest.keys import MAX_KEY_BYTES, PUBLIC_KEY_NAME, key_id, parse_public_key
from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..attest.tree import path_problem
from ..errors import BadInput
from ..progress import Steps
from .history import Since
from .limits import DEFAULT_DEADLINE_S
from .pin import UNPINNED, Pin
from .run import Report, verify_folder

__all__ = ["Deadline", "fetch_site", "verify_url", "MAX_SIGNING_BYTES", "DEFAULT_DEADLINE_S"]

TIMEOUT_S = 30.0  # the longest wait for any one step (connect, a read) of a request
# The manifest and the envelope list every file of the site (about 200 bytes an entry): 64 MiB is some
# 300,000 files. The public key is a few hundred bytes.
MAX_SIGNING_BYTES = 64 << 20
# Encodings a static server uses for stored files; anything else is refused rather than guessed at.
_READABLE = {"", "identity", "gzip", "x-gzip", "deflate"}
_UNLISTED = "verify reads of a file the manifest does not list"


class Deadline:
    """When the whole download must be done: every request waits no longer than what is left of it."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.clock = seconds, clock
        self.ends = clock() + seconds
        self.fetched = 0  # files fetched so far, for the message

    def left(self) -> float:
        return self.ends - self.clock()

    def timeout(self, url: str) -> httpx.Timeout:
        """The timeout of the next request: at most :data:`TIMEOUT_S` a step, never past the deadline."""
        self.check(url)
        return httpx.Timeout(min(TIMEOUT_S, self.left()))

    def check(self, url: str) -> None:
        if self.left() <= 0:
            raise BadInput(
                f"the download passed its deadline of {self.seconds:g} s (--deadline) with {self.fetched} file(s) fetched; nothing was verified",
                url,
            )


class _Body:
    """A body being written to ``target``: decompressed with a bound on every step, at most ``limit`` bytes."""

    def __init__(self, url: str, target: Path, limit: int, encoding: str, bound: str) -> None:
        if encoding not in _READABLE:
            raise BadInput(f"served with Content-Encoding {encoding!r}, which verify does not read (gzip, deflate or none)", url)
        self.url, self.limit, self.bound, self.written, self.raw = url, limit, bound, 0, 0
        # 32 + MAX_WBITS reads a gzip or a zlib header, whichever the body has; what follows its end is
        # ignored, as HTTP clients do.
        self.inflate = zlib.decompressobj(32 + zlib.MAX_WBITS) if encoding not in ("", "identity") else None
        self.handle = open(target, "wb")  # noqa: SIM115 - closed by close(), on every path

    def feed(self, chunk: bytes) -> None:
        """Write one chunk as received; decompressed no further than one byte past the limit."""
        self.raw += len(chunk)
        if self.raw > 2 * self.limit + (1 << 20):
            self._too_large("before decompression")
        data = chunk
        if self.inflate is not None:
            try:
                data = self.inflate.decompress(chunk, self.limit + 1 - self.written)  # whatever the ratio
            except zlib.error as err:
                raise BadInput(f"served a compressed body that does not decompress ({err})", self.url) from None
        self.written += len(data)
        if self.written > self.limit:
            self._too_large("once decompressed" if self.inflate is not None else "")
        self.handle.write(data)

    def _too_large(self, when: str) -> None:
        raise BadInput(f"served more than the {self.limit} bytes {self.bound}{' ' + when if when else ''}; stopped reading", self.url)

    def close(self, complete: bool) -> None:
        self.handle.close()
        if not complete:
            os.unlink(self.handle.name)


def _download(client: httpx.Client, url: str, target: Path, limit: int, deadline: Deadline, bound: str = "the manifest lists for it") -> int:
    """Stream ``url`` into ``target``, at most ``limit`` bytes once decoded and no later than ``deadline``; return
    the HTTP status (nothing is written unless it is 200)."""
    try:
        with client.stream("GET", url, headers={"Accept-Encoding": "gzip, deflate"}, timeout=deadline.timeout(url)) as response:
            if response.status_code != 200:
                return response.status_code
            target.parent.mkdir(parents=True, exist_ok=True)
            body = _Body(url, target, limit, response.headers.get("content-encoding", "").strip().lower(), bound)
            complete = False
            try:
                for chunk in response.iter_raw():  # each read as it arrives: the deadline is checked between reads
                    deadline.check(url)
                    body.feed(chunk)
                if body.inflate is not None and not body.inflate.eof:
                    raise BadInput("served a compressed body that stops before its end", url)
                complete = True
            finally:
                body.close(complete)
            deadline.fetched += 1
            return 200
    except httpx.HTTPError as err:
        deadline.check(url)  # a read cut short by the deadline is the deadline's
        raise BadInput(f"cannot fetch ({type(err).__name__}: {err})", url) from None


def _listed(manifest: object, where: str) -> dict[str, int]:
    """``{path: listed size}`` of the manifest's entries; an entry without a whole size is bad input (its size
    bounds what is read)."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), list):
        raise BadInput("the site manifest has no 'files' list", where)
    out: dict[str, int] = {}
    for entry in manifest["files"]:
        if not isinstance(entry, dict):
            continue
        size: Any = entry.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise BadInput(f"entry {str(entry.get('path'))!r} has no size in bytes (a whole number), which bounds what is fetched", where)
        out.setdefault(str(entry.get("path")), size)
    return out


def _signed_by_pin(into: Path, pin: Pin) -> bool:
    """Whether the fetched envelope verifies with the pinned key over a statement that lists the fetched
    ``manifest.json`` by its sha256: only then do the manifest's sizes bound what a server may send."""
    try:
        keys = [pin.key] if pin.key is not None else [parse_public_key((into / PUBLIC_KEY_NAME).read_bytes(), PUBLIC_KEY_NAME)]
        statement = json.loads(verify_envelope(parse_envelope((into / ENVELOPE_NAME).read_bytes()), keys).payload)
        digest = hashlib.sha256((into / MANIFEST_NAME).read_bytes()).hexdigest()
        subjects = statement.get("subject") if isinstance(statement, dict) else None
        return key_id(keys[0]) == pin.key_id and any(
            isinstance(s, dict) and s.get("name") == MANIFEST_NAME and s.get("digest") == {"sha256": digest} for s in subjects or []
        )
    except (OSError, ValueError, RecursionError, EnvelopeError, BadInput):
        return False


def _fetch_signing(client: httpx.Client, base: str, into: Path, listed: dict[str, int], deadline: Deadline) -> int:
    """Fetch the envelope and ``signing.pub`` before anything else (the signature decides whether the listed
    sizes are the publisher's); return how many were served."""
    fetched = 0
    for name, limit in ((ENVELOPE_NAME, MAX_SIGNING_BYTES), (PUBLIC_KEY_NAME, MAX_KEY_BYTES)):
        size, bound = (min(limit, listed[name]), "the manifest lists for it") if name in listed else (limit, _UNLISTED)
        fetched += _download(client, base + name, into / name, size, deadline, bound) == 200
    return fetched


def fetch_site(base_url: str, into: Path, client: httpx.Client | None = None, pin: Pin = UNPINNED, deadline: Deadline | None = None) -> int:
    """Download the site at ``base_url`` into ``into``, all of it before ``deadline`` (by default
    :data:`DEFAULT_DEADLINE_S` from now); return how many files were fetched.

    The manifest must exist (exit 2 otherwise: there is nothing to verify).
    A listed file the server does not have is simply not written: the
    completeness check reports it as missing. Past the deadline, one line, exit 2.
    """
    base = base_url if base_url.endswith("/") else base_url + "/"
    deadline = deadline or Deadline(DEFAULT_DEADLINE_S)
    own = client is None
    client = client or httpx.Client(timeout=httpx.Timeout(TIMEOUT_S), follow_redirects=False)
    try:
        status = _download(client, base + MANIFEST_NAME, into / MANIFEST_NAME, MAX_SIGNING_BYTES, deadline, _UNLISTED)
        if status != 200:
            raise BadInput(f"no site manifest here (HTTP {status})", base + MANIFEST_NAME)
        try:
            listed = _listed(json.loads((into / MANIFEST_NAME).read_bytes()), base + MANIFEST_NAME)
        except (ValueError, RecursionError) as err:
            raise BadInput(f"the site manifest is not JSON ({err})", base + MANIFEST_NAME) from None
        fetched = 1
        fetched += _fetch_signing(client, base, into, listed, deadline)
        if pin.pinned and not _signed_by_pin(into, pin):
            return fetched  # the sizes are a stranger's: the signature check names why
        for rel, size in listed.items():
            if path_problem(rel) or rel in (MANIFEST_NAME, ENVELOPE_NAME, PUBLIC_KEY_NAME):
                continue  # never requested: could escape the folder
            url = base + "/".join(quote(part, safe="") for part in rel.split("/"))
            try:
                fetched += _download(client, url, into / rel, size, deadline) == 200
            except OSError:
                continue  # e.g. a listed file whose parent is also listed as a file: reported as missing
        return fetched
    finally:
        if own:
            client.close()


def verify_url(
    url: str,
    pin: Pin = UNPINNED,
    *,
    allow_unpinned: bool = False,
    since: Since | None = None,
    deadline_s: float = DEFAULT_DEADLINE_S,
    steps: Steps | None = None,
) -> Report:
    """Fetch the site at ``url`` into a temporary folder (within ``deadline_s`` seconds) and verify it; locations
    name the URL. ``steps`` is told the download, then each step of :func:`verify_folder`."""
    steps = steps or Steps()
    with tempfile.TemporaryDirectory(prefix="evidence-kit-verify-") as tmp:
        root = Path(tmp)
        steps.step("downloading the site")
        fetch_site(url, root, pin=pin, deadline=Deadline(deadline_s))
        return verify_folder(root, pin, allow_unpinned=allow_unpinned, label=url.rstrip("/"), since=since, steps=steps)
