"""verify SITE covers every file build writes: public/ by its manifest, mkdocs.yml and site/ regenerated."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .test_site_tamper import DECISION, _failed

pytestmark = pytest.mark.slow  # the session builds a real site once


def _append(rel: str, text: str) -> Callable[[Path], str]:
    def edit(site: Path) -> str:
        with (site / rel).open("a") as handle:
            handle.write(text)
        return rel

    return edit


def _replace(rel: str, old: str, new: str) -> Callable[[Path], str]:
    def edit(site: Path) -> str:
        text = (site / rel).read_text()
        assert old in text, f"{old!r} not in {rel}"
        (site / rel).write_text(text.replace(old, new, 1))
        return rel

    return edit


def _delete(rel: str) -> Callable[[Path], str]:
    def edit(site: Path) -> str:
        (site / rel).unlink()
        return rel

    return edit


def _add(rel: str) -> Callable[[Path], str]:
    def edit(site: Path) -> str:
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text("Adopted: 40% faster.\n")
        return rel

    return edit


def _flip(rel: str) -> Callable[[Path], str]:
    def edit(site: Path) -> str:
        data = bytearray((site / rel).read_bytes())
        data[len(data) // 2] ^= 0x01
        (site / rel).write_bytes(bytes(data))
        return rel

    return edit


def _symlink(rel: str) -> Callable[[Path], str]:
    def edit(site: Path) -> str:
        (site / rel).symlink_to(site / "site" / "index.md")
        return rel

    return edit


EDITS = {
    "index-md": _replace("site/index.md", "timed requests", "timed requests (adopted)"),
    "decision-md": _append(f"site/{DECISION}/index.md", "\nAdopted: 40% faster.\n"),
    "mkdocs-yml": _replace("mkdocs.yml", 'site_name: "evidence-kit decisions"', 'site_name: "Adopted"'),
    "chart-data": _flip(f"site/{DECISION}/cache-layout/per-run.csv"),
    "evidence-copy": _flip(f"site/{DECISION}/evidence/cache-layout/journals/01-original-before.jsonl"),
    "deleted-page": _delete("site/methodology.md"),
    "deleted-mkdocs-yml": _delete("mkdocs.yml"),
    "added-page": _add("site/addendum.md"),
    "added-evidence-file": _add(f"site/{DECISION}/evidence/cache-layout/notes.txt"),
    "added-hidden-file": _add("site/.pages"),
    "added-at-top": _add("README.md"),
    "symlink-in-docs": _symlink("site/link.md"),
}


def test_built_site_folder_covers_its_sources(run_cli, site_folder: Path, keypair) -> None:
    result = run_cli("verify", site_folder, "--key", keypair[1])
    assert result.code == 0, result.out
    assert "PASS sources" in result.out and "mkdocs.yml and site/ are byte for byte" in result.out


@pytest.mark.parametrize("case", sorted(EDITS))
def test_any_change_under_the_site_folder_fails(run_cli, site_folder: Path, keypair, case: str) -> None:
    rel = EDITS[case](site_folder)
    result = run_cli("verify", site_folder, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and "sources" in failed, result.out
    assert any(str(site_folder / rel) in line for line in failed["sources"]), failed["sources"]
    assert set(failed) == {"sources"}, failed  # public/ is untouched: only the sources check can see this


def test_public_folder_alone_is_rebuilt_but_not_its_sources(run_cli, site_folder: Path, keypair) -> None:
    result = run_cli("verify", site_folder / "public", "--key", keypair[1])
    assert result.code == 0, result.out
    assert "PASS sources" in result.out and "public/ is byte for byte what build writes" in result.out
    assert "(give SITE to cover mkdocs.yml and site/)" in result.out


def test_site_folder_without_its_public_manifest_fails(run_cli, site_folder: Path) -> None:
    (site_folder / "public" / "manifest.json").unlink()
    result = run_cli("verify", site_folder, "--allow-unpinned")
    failed = _failed(result)
    assert result.code == 1, result.out
    assert any("public/manifest.json: missing" in line for line in failed.get("complete", [])), result.out
