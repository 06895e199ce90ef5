"""`evidence-kit build` end to end: real MkDocs, real leak scan, real bytes on disk."""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

import pytest

from evidence_kit.commands.command_line import command_line
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import build_site

from .conftest import DECISION_ID, redacted_reference

pytestmark = pytest.mark.slow

HOSTILE_TITLE = "<script>alert('title')</script> **Bold** [x](https://evil.example/) " + "L" * 180
HOSTILE_PROSE = (
    "<img src=x onerror=alert(1)> # not a heading\n\n- not a list\n\n"
    "<iframe src='https://evil.example/'></iframe> ![i](http://evil.example/i.png) {: onclick=alert(1) }"
)
HOSTILE_LABEL = "<b onmouseover=alert(2)>Cand</b>|pipe**x**"


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_are_byte_identical(built_site: Path, reference_bundle: Path, tmp_path: Path, run_cli) -> None:
    result = run_cli("build", reference_bundle, "--out", tmp_path / "again")
    assert result.code == 0, result.err
    assert "public/index.html" in result.out and command_line("serve", tmp_path / "again") in result.out
    first, second = _tree(built_site), _tree(tmp_path / "again")
    assert first == second
    assert sorted(p for p in (tmp_path / "again").iterdir()) == [tmp_path / "again" / n for n in ("mkdocs.yml", "public", "site")]


def test_site_manifest_lists_every_file(built_site: Path) -> None:
    public = built_site / "public"
    manifest = json.loads((public / "manifest.json").read_text())
    assert manifest["schema"] == "evidence-kit/manifest/v1"
    listed = {e["path"]: e["sha256"] for e in manifest["files"]}
    on_disk = {k: v for k, v in _tree(public).items() if k != "manifest.json"}
    assert listed == on_disk
    assert "sitemap.xml.gz" not in on_disk  # empty without site_url, and its gzip header had a time in it


def test_no_page_loads_or_links_anything_remote(built_site: Path) -> None:
    pages = sorted((built_site / "public").rglob("*.html"))
    assert len(pages) > 15
    for page in pages:
        text = page.read_text()
        assert not re.search(r"""(?:href|src|action)\s*=\s*["']?(?:https?:)?//""", text), page
        assert "fonts.googleapis" not in text and "@import" not in text, page
    config = (built_site / "mkdocs.yml").read_text()
    assert "font: false" in config and "generator: false" in config and "\nsite_url" not in config


def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path: Path, run_cli) -> None:
    decision = write_reference_decision(tmp_path / "bad")
    text = (decision / "decision.toml").read_text().replace('date = "2026-11-01"', 'date = "November"')
    (decision / "decision.toml").write_text(text)
    result = run_cli("build", decision, "--out", tmp_path / "out")
    assert result.code == 2
    assert result.err.count("\n") == 1 and "decision.toml:2:" in result.err and "Traceback" not in result.err
    assert not (tmp_path / "out").exists()
    missing = run_cli("build", tmp_path / "nowhere", "--out", tmp_path / "out")
    assert missing.code == 2 and missing.err.count("\n") == 1 and "nowhere" in missing.err


def test_raw_evidence_fails_closed_and_leaves_the_site_alone(built_site: Path, tmp_path: Path, run_cli) -> None:
    raw = write_reference_decision(tmp_path / "raw")  # journals still hold their `private` values
    out = tmp_path / "site"
    out.mkdir()
    (out / "keep.txt").write_text("not ours")
    result = run_cli("build", raw, "--out", out)
    assert result.code == 1
    assert result.err.count("\n") == 1
    assert re.search(r"site/decisions/.+\.jsonl:1: the site would publish something private: (model|endpoint)", result.err)
    assert "example-org" not in result.err and "127.0.0.1" not in result.err  # the value itself is never printed
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_hostile_strings_are_escaped(tmp_path: Path, run_cli) -> None:
    def edit(raw: Path) -> None:
        toml = (raw / "decision.toml").read_text()
        toml = toml.replace(
            'title = "Cache-layout and DFlash scouts (reconstructed from the reference page): retain the current configuration"',
            f"title = {json.dumps(HOSTILE_TITLE)}",
        )
        toml += f"caveat = {json.dumps(HOSTILE_PROSE)}\n"
        (raw / "decision.toml").write_text(toml)
        trial = json.loads((raw / "cache-layout" / "trial.json").read_text())
        trial["arms"][1]["label"] = HOSTILE_LABEL
        (raw / "cache-layout" / "trial.json").write_text(json.dumps(trial, indent=2))

    bundle = redacted_reference(tmp_path / "hostile", edit)
    result = run_cli("build", bundle, "--out", tmp_path / "site")
    assert result.code == 0, result.err
    public = tmp_path / "site" / "public"
    for page in public.rglob("*.html"):
        text = page.read_text()
        for needle in ("<script>alert", "<img src=x", "<iframe", "<b onmouseover", "onclick=alert(1)>", 'href="https://evil'):
            assert needle not in text, (page, needle)
    # What a reader sees is the hostile text itself, as text.
    shown = html.unescape(re.sub(r"<[^>]+>", "", (public / "decisions" / DECISION_ID / "index.html").read_text()))
    assert "<script>alert('title')</script> **Bold**" in shown and "L" * 180 in shown
    assert "<img src=x onerror=alert(1)> # not a heading" in shown and "- not a list" in shown
    assert "<b onmouseover=alert(2)>Cand</b>|pipe**x**" in shown
    search = (public / "search" / "search_index.json").read_text()
    assert "<script>alert(" not in search


def test_evidence_changed_after_redaction_is_refused(reference_bundle: Path, tmp_path: Path, run_cli) -> None:
    """A bundle whose files no longer match its manifest would publish a site that fails verify: refuse it."""
    import shutil

    decision = Path(shutil.copytree(reference_bundle, tmp_path / "decision"))
    journal = sorted(decision.glob("*/journals/*.jsonl"))[0]
    journal.write_bytes(journal.read_bytes().replace(b'"seq":1', b'"seq": 1', 1))
    result = run_cli("build", decision, "--out", tmp_path / "out")
    assert result.code == 2, result.out + result.err
    assert result.err.count("\n") == 1 and journal.name in result.err and "manifest.json" in result.err
    assert not (tmp_path / "out").exists()
    (sorted(decision.glob("*/journals"))[0] / "extra.log").write_text("added after redaction\n")
    journal.write_bytes(journal.read_bytes().replace(b'"seq": 1', b'"seq":1', 1))
    added = run_cli("build", decision, "--out", tmp_path / "out")
    assert added.code == 2 and "extra.log" in added.err and "not listed" in added.err


def test_a_trial_folder_not_named_after_its_trial_id_builds_and_links(tmp_path: Path) -> None:
    """The copy under ``evidence/`` follows the folder ``decision.toml`` names; so must the links."""

    def rename(raw: Path) -> None:
        (raw / "dflash").rename(raw / "dflash-scout")
        toml = raw / "decision.toml"
        toml.write_text(toml.read_text(encoding="utf-8").replace('"dflash"]', '"dflash-scout"]'), encoding="utf-8")

    bundle = redacted_reference(tmp_path, rename)
    out = tmp_path / "site"
    build_site([bundle], out)  # MkDocs --strict: a link to a missing journal fails the build
    index = (out / "public" / "decisions" / DECISION_ID / "evidence-index.html").read_text(encoding="utf-8")
    assert "evidence/dflash-scout/journals/" in index
    assert "evidence/dflash/journals/" not in index
