"""A page inside a built site's copy of the evidence is served to a reader like any other page."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.attest import write_manifest

from .test_site_tamper import DECISION

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", ["report.html", "NOTES.XHTML", "verdict.svg"])
def test_a_page_added_to_the_evidence_copy_and_resigned_fails(run_cli, site: Path, keypair, name: str) -> None:
    from ..resign import resign

    trial = next(p.parent for p in sorted((site / DECISION / "evidence").rglob("trial.json")))
    (trial / name).write_text("<p>Adopted: 40% faster</p>", "utf-8")
    for folder in (trial, trial.parent):  # the manifests list it too: only the evidence contract can tell
        write_manifest(folder)
    resign(site, keypair[0])
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1 and name in result.out and "\nFAILED: " in "\n" + result.out, result.out


@pytest.mark.parametrize("name", ["report.html", "verdict.svg", "NOTES.XHTML", "README.md"])
def test_build_refuses_a_decision_folder_holding_a_page_naming_it(run_cli, redacted_master: Path, tmp_path: Path, name: str) -> None:
    # Listed in every manifest, so no manifest check can tell: the contract's layout does.
    import shutil

    decision = tmp_path / "decision"
    shutil.copytree(redacted_master, decision)
    trial = next(p.parent for p in sorted(decision.rglob("trial.json")))
    body = '<svg xmlns="http://www.w3.org/2000/svg"><text y="20">Adopted: 40% faster</text></svg>'
    (trial / name).write_text(body if name.lower().endswith(".svg") else "<p>Adopted: 40% faster</p>", "utf-8")
    for folder in (trial, decision):
        write_manifest(folder)
    result = run_cli("build", decision, "--out", tmp_path / "site")
    assert result.code == 2, result.out
    (line,) = result.err.strip().splitlines()
    assert line.startswith(f"evidence-kit: {trial / name}: not a file of the evidence contract"), line
    assert not (tmp_path / "site").exists() or not any((tmp_path / "site").iterdir())
