"""Fixtures of the redactor tests: a raw trial full of canaries, and its redacted bundle."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.redact import RedactResult, redact_bundle

from .corpus import make_raw_decision, make_raw_trial

KEY = b"fabricated-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def raw_trial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_raw_trial(tmp_path_factory.mktemp("raw") / "cache-layout")


@pytest.fixture(scope="module")
def redacted(raw_trial: Path, tmp_path_factory: pytest.TempPathFactory) -> RedactResult:
    return redact_bundle(raw_trial, tmp_path_factory.mktemp("out") / "bundle", key=KEY)


@pytest.fixture(scope="module")
def raw_decision(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_raw_decision(tmp_path_factory.mktemp("rawdec") / "decision")
