"""Fixtures for the site generator: the reference decision, redacted for real, and built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import build_site
from evidence_kit.redact import redact_bundle

DECISION_ID = "2026-11-01-reference-reconstruction"


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
