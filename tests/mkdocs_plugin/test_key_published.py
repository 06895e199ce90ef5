"""The signing key must never be published: the refusal checks docs_dir and site_dir by resolved path only,
but MkDocs also publishes a theme custom_dir's files and follows symlinked folders inside docs/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.plugin_host import build_host, write_host

pytestmark = pytest.mark.slow


def _published_keys(site: Path, key: Path) -> list[Path]:
    secret = key.read_bytes()
    return [p for p in site.rglob("*") if p.is_file() and p.read_bytes() == secret]


def test_key_in_theme_custom_dir_is_refused(tmp_path: Path, redacted_master: Path, keypair) -> None:
    (tmp_path / "overrides").mkdir(parents=True)
    key = Path(shutil.copy(keypair[0], tmp_path / "overrides" / "signing.key"))
    config = write_host(tmp_path, {"decisions": [str(redacted_master)], "signing_key": "overrides/signing.key"})
    config.write_text(config.read_text().replace("  name: material", "  name: material\n  custom_dir: overrides", 1))
    done = build_host(config)
    # Expected: refused like a key inside docs/ (MkDocs copies custom_dir's static files into the site).
    assert done.returncode != 0 or not _published_keys(tmp_path / "site", key), _published_keys(tmp_path / "site", key)


def test_key_in_folder_symlinked_into_docs_is_refused(tmp_path: Path, redacted_master: Path, keypair) -> None:
    (tmp_path / "secrets").mkdir()
    key = Path(shutil.copy(keypair[0], tmp_path / "secrets" / "signing.key"))
    config = write_host(tmp_path, {"decisions": [str(redacted_master)], "signing_key": "secrets/signing.key"})
    os.symlink(tmp_path / "secrets", tmp_path / "docs" / "secrets")
    done = build_host(config)
    # Expected: refused, or at least not published.
    assert done.returncode != 0 or not _published_keys(tmp_path / "site", key), _published_keys(tmp_path / "site", key)
