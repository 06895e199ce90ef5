"""Shared fixtures: evidence written by the tests themselves, and the CLI run in-process."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from evidence_kit.cli import main
from evidence_kit.examples.reference import write_reference_decision

REPO = Path(__file__).resolve().parent.parent


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Run ``evidence-kit ARGS`` in-process; return exit code, stdout and stderr."""

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def reference_decision(tmp_path: Path) -> Path:
    """A decision folder whose journals reproduce the reference page's published medians."""
    return write_reference_decision(tmp_path / "reference")
