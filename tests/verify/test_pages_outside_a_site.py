"""A signed folder laid out as neither a built site nor a plugin's prefix folder has no page compared with its
evidence, so one with a page in it fails: the reader would read words no check compared, while the last line
said every published figure was compared."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree
from evidence_kit.attest.manifest import write_manifest

from .test_site_tamper import _failed

PAGE = "<!doctype html><title>Decision</title><h1>Adopted: the candidate is 40% faster</h1>\n"
WHY = "a page, but the folder is laid out as neither a built site"


def _write(rel: str, text: str = PAGE) -> Callable[[Path], None]:
    def place(folder: Path) -> None:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)

    return place


def _in_a_trial(folder: Path) -> None:
    # The trial bundle's own manifest rewritten too, so the complete check has nothing to say.
    _write("dflash/index.html")(folder)
    write_manifest(folder / "dflash")


PLACES: dict[str, Callable[[Path], None]] = {
    # a page beside the evidence, under a name no site rule matches
    "report.html": _write("report.html"),
    # served as /index.html by a case-insensitive file system or server
    "INDEX.HTML": _write("INDEX.HTML"),
    "index.htm": _write("index.htm"),
    "Decisions/x/index.html": _write("Decisions/x/index.html"),
    "index.svg": _write("index.svg", '<svg xmlns="http://www.w3.org/2000/svg"><text y="20">Adopted: 40% faster</text></svg>\n'),
    "dflash/index.html": _in_a_trial,
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_signed_decision_folder_with_a_page_fails_naming_it(run_cli, redacted: Path, keypair, place: str) -> None:
    PLACES[place](redacted)
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 1, result.out
    failed = _failed(result)
    assert set(failed) == {"contract", "figures"}, result.out  # no evidence by the layout, and compared with nothing
    assert any(line.startswith(f"{redacted}/{place}: not a file of the evidence contract") for line in failed["contract"]), result.out
    assert any(line.startswith(f"{redacted}/{place}: {WHY}") for line in failed["figures"]), result.out


def test_a_decision_folder_without_pages_still_verifies(run_cli, redacted: Path, keypair) -> None:
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 0, result.out
    assert "no published pages or analysis here to compare" in result.out


@pytest.mark.slow
def test_a_prefix_folder_whose_evidence_moved_where_no_decision_may_sit_fails(run_cli, host_master: Path, tmp_path: Path, keypair) -> None:
    # ``evidence`` is a reserved name of the prefix folder: with the only decision's evidence moved there, the
    # folder is no prefix folder, and its decision pages were compared with nothing.
    folder = Path(shutil.copytree(host_master, tmp_path / "decisions", symlinks=True))
    (unit,) = [p.parent.parent.name for p in folder.glob("*/evidence/decision.toml")]
    (folder / unit / "evidence").rename(folder / "evidence")
    sign_tree(folder, keypair[0])  # signed anew, without the plugin's claim of how it was published
    result = run_cli("verify", folder, "--key", keypair[1])
    assert result.code == 1, result.out
    assert any(line.startswith(f"{folder}/{unit}/index.html: {WHY}") for line in _failed(result)["figures"]), result.out


def test_a_signed_decision_folder_with_a_markdown_page_fails_naming_it(run_cli, redacted: Path, keypair) -> None:
    # A code host renders README.md as the folder's page; the contract lays out no Markdown in evidence.
    _write("README.md", "# Adopted: the candidate is 40% faster\n")(redacted)
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 1, result.out
    assert any(line.startswith(f"{redacted}/README.md: not a file of the evidence contract") for line in _failed(result)["contract"]), result.out
