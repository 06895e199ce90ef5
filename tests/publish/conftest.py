"""Fixtures for the site generator: the reference decision, redacted for real, and built once."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from evidence_kit.attest.keys import generate_keypair
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle

DECISION_ID = "2026-11-01-reference-reconstruction"
DEMO = Path(__file__).resolve().parents[2] / "evidence" / "2026-12-01-simulated-cache-layout-and-dflash"


def redacted_reference(root: Path, edit=None) -> Path:
    """The reference decision written raw, optionally edited, then redacted by the real redactor."""
    raw = write_reference_decision(root / "raw")
    if edit is not None:
        edit(raw)
    result = redact_bundle(raw, root / "redacted")
    assert not result.findings, result.findings
    return root / "redacted"


@pytest.fixture(scope="session")
def reference_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reconstructed reference decision, redacted (publishable)."""
    return redacted_reference(tmp_path_factory.mktemp("reference"))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory, reference_bundle: Path) -> Path:
    """The site of the reference decision, built once for every test that only reads it."""
    out = tmp_path_factory.mktemp("site") / "site"
    build_site([reference_bundle], out)
    return out


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The demo's decision (the repository's evidence/, as scripts/demo writes it) built and signed once:
    (site folder, the publisher's public key, its key id)."""
    root = tmp_path_factory.mktemp("demo-site")
    secret, public, key = generate_keypair(root / "keys")
    build_site([DEMO], root / "site", sign_key=secret)
    return root / "site", public, key


@contextmanager
def serving(site: Path) -> Iterator[str]:
    """`evidence-kit serve SITE --port 0` as a real subprocess; yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "serve", str(site), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None else "")  # type: ignore[union-attr]
        yield f"http://127.0.0.1:{match.group(1)}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
