"""The version lives in one place (evidence_kit/version.py); the package metadata and --version read it."""

from __future__ import annotations

import importlib.metadata
import tomllib

from evidence_kit.version import __version__

from .conftest import REPO


def test_the_version_has_one_source(run_cli) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "evidence_kit.version.__version__"}
    assert importlib.metadata.version("evidence-kit") == __version__
    result = run_cli("--version")
    assert result.code == 0 and result.out.strip().endswith(__version__)
