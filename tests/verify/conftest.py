"""Evidence for the auditor's tests: redacted, built and signed with the real components, once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidence_kit.attest import generate_keypair
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle

from ..plugin_host import build_host, write_host


@pytest.fixture(scope="session")
def keypair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(private key, public key) written by keygen's library function."""
    private, public, _ = generate_keypair(tmp_path_factory.mktemp("keys"))
    return private, public


@pytest.fixture(scope="session")
def other_keypair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    private, public, _ = generate_keypair(tmp_path_factory.mktemp("other-keys"))
    return private, public


@pytest.fixture(scope="session")
def redacted_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference decision, redacted: receipts and a manifest per trial bundle."""
    base = tmp_path_factory.mktemp("redacted")
    raw = write_reference_decision(base / "raw")
    return redact_bundle(raw, base / "decision", key=b"verify-tests-key-0123456789abcdef").out


@pytest.fixture(scope="session")
def site_master(tmp_path_factory: pytest.TempPathFactory, redacted_master: Path, keypair: tuple[Path, Path]) -> Path:
    """The built site of the redacted decision (``build --sign``: public/ signed, the toolchain recorded).
    Built once for every test of the auditor; a test that changes it takes a copy (``site``, ``site_folder``)."""
    out = tmp_path_factory.mktemp("site") / "site"
    build_site([redacted_master], out, sign_key=keypair[0])
    return out


@pytest.fixture(scope="session")
def host_master(tmp_path_factory: pytest.TempPathFactory, redacted_master: Path, keypair: tuple[Path, Path]) -> Path:
    """The redacted decision published inside a host MkDocs site by the plugin (signed, MkDocs' default directory
    URLs: a page ``x.md`` is ``x/index.html``): its prefix folder. A test that changes it takes a copy."""
    root = tmp_path_factory.mktemp("host")
    done = build_host(write_host(root, {"decisions": [str(redacted_master)], "signing_key": str(keypair[0])}))
    assert done.returncode == 0, done.stderr
    return root / "site" / "decisions"


@pytest.fixture
def redacted(tmp_path: Path, redacted_master: Path) -> Path:
    """A private copy of the redacted decision folder, free to tamper with."""
    return Path(shutil.copytree(redacted_master, tmp_path / "decision", symlinks=True))


@pytest.fixture
def site(tmp_path: Path, site_master: Path) -> Path:
    """A private copy of the signed site's public/ folder, free to tamper with."""
    return Path(shutil.copytree(site_master / "public", tmp_path / "public", symlinks=True))


@pytest.fixture
def site_folder(tmp_path: Path, site_master: Path) -> Path:
    """A private copy of the whole built site folder (mkdocs.yml, site/, public/), free to tamper with."""
    return Path(shutil.copytree(site_master, tmp_path / "site", symlinks=True))
