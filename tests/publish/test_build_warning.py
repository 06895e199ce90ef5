"""build says, in one line on stderr, when it published without the operator's private map to scan against."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # two real builds

WARNING = "evidence-kit: warning: built without --known-values"


def test_build_without_a_map_warns_in_one_line(run_cli, reference_bundle: Path, tmp_path: Path) -> None:
    result = run_cli("build", reference_bundle, "--out", tmp_path / "site")
    assert result.code == 0, result.err
    assert result.err.startswith(WARNING) and result.err.count("\n") == 1, result.err
    assert "redact --map" in result.err


def test_build_with_a_map_does_not_warn(run_cli, reference_bundle: Path, tmp_path: Path) -> None:
    private_map = tmp_path / "map.json"
    private_map.write_text(
        json.dumps(
            {
                "schema": "evidence-kit/redaction-map/v1",
                "key_id": "none",
                "entries": [{"pseudonym": "host-1", "class": "host", "values": ["gpu-node-17.acme-labs.internal"]}],
            }
        )
    )
    result = run_cli("build", reference_bundle, "--out", tmp_path / "site", "--known-values", private_map)
    assert result.code == 0, result.err
    assert WARNING not in result.err
