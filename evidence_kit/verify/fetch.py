"""Verify a served site by URL: download the manifest, envelope and every listed file, then verify the copy.

Only what the manifest lists is fetched, each into the path it names inside a
fresh temporary folder; a listed path that could land outside that folder is
never requested (the paths check then reports it). The copy is deleted afterwards.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from urllib.parse import quote

import httpx

from ..attest.keys import PUBLIC_KEY_NAME
from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME
from ..attest.tree import path_problem
from ..errors import BadInput
from .pin import UNPINNED, Pin
from .run import Report, verify_folder

__all__ = ["fetch_site", "verify_url"]

TIMEOUT = httpx.Timeout(30.0)


def _get(client: httpx.Client, url: str) -> httpx.Response:
    try:
        return client.get(url)
    except httpx.HTTPError as err:
        raise BadInput(f"cannot fetch ({type(err).__name__}: {err})", url) from None


def _write(root: Path, rel: str, data: bytes) -> None:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def _listed(manifest: object, where: str) -> list[str]:
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), list):
        raise BadInput("the site manifest has no 'files' list", where)
    return [str(e.get("path")) for e in manifest["files"] if isinstance(e, dict)]


def fetch_site(base_url: str, into: Path, client: httpx.Client | None = None) -> int:
    """Download the site at ``base_url`` into ``into``; return how many files were fetched.

    The manifest must exist (exit 2 otherwise: there is nothing to verify).
    A listed file the server does not have is simply not written: the
    completeness check reports it as missing.
    """
    base = base_url if base_url.endswith("/") else base_url + "/"
    own = client is None
    client = client or httpx.Client(timeout=TIMEOUT, follow_redirects=False)
    try:
        response = _get(client, base + MANIFEST_NAME)
        if response.status_code != 200:
            raise BadInput(f"no site manifest here (HTTP {response.status_code})", base + MANIFEST_NAME)
        _write(into, MANIFEST_NAME, response.content)
        try:
            listed = _listed(json.loads(response.content), base + MANIFEST_NAME)
        except ValueError as err:
            raise BadInput(f"the site manifest is not JSON ({err})", base + MANIFEST_NAME) from None
        fetched = 1
        for name in (ENVELOPE_NAME, PUBLIC_KEY_NAME):
            if name in listed:
                continue
            response = _get(client, base + name)
            if response.status_code == 200:
                _write(into, name, response.content)
                fetched += 1
        for rel in listed:
            if path_problem(rel) or rel in (MANIFEST_NAME, ENVELOPE_NAME):
                continue  # never requested: could escape the folder
            response = _get(client, base + "/".join(quote(part, safe="") for part in rel.split("/")))
            if response.status_code == 200:
                try:
                    _write(into, rel, response.content)
                except OSError:
                    continue  # e.g. a listed file whose parent is also listed as a file: reported as missing
                fetched += 1
        return fetched
    finally:
        if own:
            client.close()


def verify_url(url: str, pin: Pin = UNPINNED, *, allow_unpinned: bool = False) -> Report:
    """Fetch the site at ``url`` into a temporary folder and verify it; locations name the URL."""
    with tempfile.TemporaryDirectory(prefix="evidence-kit-verify-") as tmp:
        root = Path(tmp)
        fetch_site(url, root)
        return verify_folder(root, pin, allow_unpinned=allow_unpinned, label=url.rstrip("/"))
