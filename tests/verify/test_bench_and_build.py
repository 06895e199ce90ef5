"""The verify benchmark at a tiny size, and `build --sign` end to end through the CLI."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def _bench():
    spec = importlib.util.spec_from_file_location("verify_throughput", REPO / "bench" / "verify_throughput.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_runs_and_deletes_its_data(tmp_path: Path) -> None:
    result = _bench().run(size_mb=2, repeat=1, workdir=tmp_path)
    assert result["bytes"] > 2 * 1024 * 1024
    assert result["verify_s"] > 0 and result["sha256sum_s"] > 0
    assert result["ratio"] > 0  # its value at this size is all fixed cost; docs/benchmarks.md has the real one
    assert list(tmp_path.iterdir()) == []


def test_the_benchmark_s_evidence_holds_only_the_contract_s_files(tmp_path: Path, keypair) -> None:
    # At 8 MiB each bundle gets telemetry too (at 2 MiB only logs): verify fails a file the contract does not lay out.
    import tomllib

    from evidence_kit.model.layout import layout_problem

    decision, files = _bench().make_evidence(tmp_path, 8, keypair[0])
    trials = tomllib.loads((decision / "decision.toml").read_text())["trials"]
    rels = [f.relative_to(decision).as_posix() for f in files]
    assert any(rel.split("/")[1] == "telemetry" for rel in rels if "/" in rel), rels
    assert [(rel, problem) for rel in rels if (problem := layout_problem(rel, trials, at_top=True))] == []  # verified at its top


def test_build_sign_then_verify(run_cli, redacted: Path, keypair, tmp_path: Path) -> None:
    built = run_cli("build", redacted, "--out", tmp_path / "site", "--sign", keypair[0])
    assert built.code == 0, built.err
    assert (tmp_path / "site" / "public" / "manifest.dsse.json").is_file()
    result = run_cli("verify", tmp_path / "site", "--key", keypair[1])
    assert result.code == 0, result.out
    # build --sign prints the key id, which pins the site by itself.
    from evidence_kit.attest.keys import key_id, load_public_key

    kid = key_id(load_public_key(keypair[1]))
    assert f"key id: {kid}" in built.out
    assert run_cli("verify", tmp_path / "site", "--key-id", kid).code == 0


def test_build_sign_with_bad_key_builds_nothing(run_cli, redacted: Path, tmp_path: Path) -> None:
    key = tmp_path / "signing.key"
    key.write_text("not a key")
    key.chmod(0o600)
    result = run_cli("build", redacted, "--out", tmp_path / "site", "--sign", key)
    assert result.code == 2 and f"{key}: not a PEM private key" in result.err
    assert not (tmp_path / "site").exists()
