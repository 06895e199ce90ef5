"""What the redactor writes is laid out by the contract by construction: every file it publishes is a kind
``evidence_kit.model.layout`` names, whatever raw files, pages and images the raw folder held."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.model.layout import layout_problem
from evidence_kit.redact import redact_bundle

from . import corpus
from .conftest import KEY


def test_a_redacted_decision_folder_holds_only_the_contract_s_files(tmp_path: Path) -> None:
    raw = corpus.make_raw_decision(tmp_path / "raw")
    (raw / "nvidia-smi-q.txt").write_text(corpus.nvidia_smi())  # beside decision.toml: withheld, its record published
    (raw / "dflash" / "report.html").write_text("<p>Adopted: 40% faster</p>")
    (raw / "dflash" / "logs" / "verdict.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>Adopted</text></svg>')
    (raw / "cache-layout" / "NOTES.md").write_text("# Adopted\n")
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    files = sorted(p.relative_to(result.out).as_posix() for p in result.out.rglob("*") if p.is_file())
    assert any(f.endswith(".nvidia-smi-query.json") and "/" not in f for f in files), files  # the decision's record
    assert any(f.endswith(".vllm-startup-log.json") for f in files), files
    assert [(f, layout_problem(f, result.bundles)) for f in files if layout_problem(f, result.bundles)] == []


def test_a_redacted_trial_bundle_holds_only_the_contract_s_files(tmp_path: Path) -> None:
    raw = corpus.make_raw_trial(tmp_path / "raw", "dflash")
    (raw / "index.html").write_text("<p>Adopted: 40% faster</p>")
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    files = sorted(p.relative_to(result.out).as_posix() for p in result.out.rglob("*") if p.is_file())
    assert "trial.json" in files and [(f, layout_problem(f, None)) for f in files if layout_problem(f, None)] == []
