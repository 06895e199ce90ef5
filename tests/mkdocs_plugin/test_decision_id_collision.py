"""A decision whose id is 'methodology': its page methodology/index.md and the plugin's methodology.md
are both published as PREFIX/methodology/index.html under MkDocs' default use_directory_urls."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.plugin_host import build_host, write_host

pytestmark = pytest.mark.slow


def test_decision_id_methodology(tmp_path: Path, run_cli, redacted_master: Path) -> None:
    from evidence_kit.examples.reference import write_reference_decision
    from evidence_kit.redact import redact_bundle

    raw = write_reference_decision(tmp_path / "raw")
    toml = raw / "decision.toml"
    toml.write_text(re.sub(r'(?m)^id\s*=\s*".*"', 'id = "methodology"', toml.read_text(), count=1))
    decision = redact_bundle(raw, tmp_path / "decision", key=b"verify-tests-key-0123456789abcdef").out
    done = build_host(write_host(tmp_path / "host", {"decisions": [str(decision)]}))
    if done.returncode != 0:
        # Expected behaviour A: a one-line refusal naming the id (like 'assets').
        assert "evidence-kit" in done.stderr and "methodology" in done.stderr, done.stderr[-1500:]
        return
    result = run_cli("verify", tmp_path / "host" / "site" / "decisions", "--allow-unpinned")
    # Expected behaviour B: what the plugin built, verify passes.
    assert result.code == 0, result.out[-2500:]
