"""Type checking and linting run with the tests: mypy (strict on the contract, the statistics
and what is signed; see pyproject.toml) and ruff must both be clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MYPY_CACHE_DIR": str(tmp_path / "mypy"), "RUFF_CACHE_DIR": str(tmp_path / "ruff")},
    )


def test_ruff_finds_nothing(tmp_path: Path) -> None:
    done = _run("ruff", "check", "evidence_kit", "tests", "bench", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_changes_nothing(tmp_path: Path) -> None:
    done = _run("ruff", "format", "--check", "evidence_kit", "tests", "bench", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing(tmp_path: Path) -> None:
    done = _run("mypy", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
