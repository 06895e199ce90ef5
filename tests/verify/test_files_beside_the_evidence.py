"""A signed folder laid out as neither a built site nor a plugin's prefix folder may hold evidence folders in
subfolders (a decision folder, a trial bundle) and its signature: a note, a README or an XML page beside them
is served to a reader (a code host renders README.md as the folder's page; a browser renders XML with its
stylesheet) and compared with nothing, so it fails the contract check, naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree

from .test_site_tamper import _failed

XML = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Adopted: 40% faster</h1></body></html>\n'


def _folder_of(redacted: Path, tmp_path: Path) -> Path:
    """A folder holding the redacted decision folder in a subfolder, as a publisher would sign a batch."""
    folder = tmp_path / "batch"
    folder.mkdir()
    shutil.move(str(redacted), folder / "2026-11-01")
    return folder


def test_a_signed_folder_of_a_decision_folder_verifies(run_cli, redacted: Path, keypair, tmp_path: Path) -> None:
    folder = _folder_of(redacted, tmp_path)
    sign_tree(folder, keypair[0])
    result = run_cli("verify", folder, "--key", keypair[1])
    assert result.code == 0, result.out


@pytest.mark.parametrize("place", ["README.md", "notes.txt", "report.xml", "receipt.json", "old/chart.png", "2026-11-01.md"])
def test_a_file_beside_the_evidence_folders_of_a_signed_folder_fails_naming_it(run_cli, redacted: Path, keypair, tmp_path: Path, place: str) -> None:
    folder = _folder_of(redacted, tmp_path)
    (folder / place).parent.mkdir(parents=True, exist_ok=True)
    (folder / place).write_text(XML if place.endswith(".xml") else "# Adopted: the candidate is 40% faster\n")
    sign_tree(folder, keypair[0])
    result = run_cli("verify", folder, "--key", keypair[1])
    assert result.code == 1, result.out
    assert any(line.startswith(f"{folder}/{place}: not a file of the evidence contract") for line in _failed(result).get("contract", [])), result.out
