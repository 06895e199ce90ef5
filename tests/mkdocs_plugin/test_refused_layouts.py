"""Plugin inputs that build but publish what they should not, or that verify then cannot check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence_kit.examples.reference import write_reference_decision
from tests.plugin_host import build_host, write_host

pytestmark = pytest.mark.slow


def test_prefix_dot_is_refused(tmp_path: Path, redacted_master: Path) -> None:
    """prefix '.' passes _prefix() (PurePosixPath('.').parts is empty): the 'prefix folder' is the whole host
    site, its manifest signs the host's own pages, and on_files' "prefix is ours alone" check never fires."""
    done = build_host(write_host(tmp_path, {"decisions": [str(redacted_master)], "prefix": "."}))
    # Expected: the build fails in one line naming the prefix, as for '..' or '/'.
    assert done.returncode != 0 and "prefix" in done.stderr, (done.returncode, done.stderr[-800:])


def test_host_page_named_like_the_prefix_is_refused(tmp_path: Path, run_cli, redacted_master: Path) -> None:
    """A host page docs/decisions.md is published (default use_directory_urls) as site/decisions/index.html,
    inside the plugin's folder: the manifest lists it and verify then takes the folder for a built site."""
    write_host(tmp_path, {"decisions": [str(redacted_master)]})
    (tmp_path / "docs" / "decisions.md").write_text("# Our decisions\n\nSee the list in the nav.\n")
    done = build_host(tmp_path / "mkdocs.yml")
    if done.returncode == 0:
        assert (tmp_path / "site" / "decisions" / "index.html").exists()
        result = run_cli("verify", tmp_path / "site" / "decisions", "--allow-unpinned")
        # Expected: the build refuses a host page whose output lands under PREFIX/ (it checks src_uri only)
        # -- here it built, so at least verify must pass the folder the plugin signed.
        assert result.code == 0, result.out[-1500:]


def test_private_map_inside_docs_is_refused(tmp_path: Path, redacted_master: Path) -> None:
    """The signing key inside docs/ is refused (MkDocs would publish it); the private map given as
    known_values (real names of the redacted values) inside docs/ is published verbatim."""
    write_host(tmp_path, {"decisions": [str(redacted_master)], "known_values": ["docs/private/map.json"]})
    (tmp_path / "docs" / "private").mkdir()
    shutil.copy(_a_private_map(tmp_path, redacted_master), tmp_path / "docs" / "private" / "map.json")
    done = build_host(tmp_path / "mkdocs.yml")
    # Expected: refused like the key ("inside the docs or site folder, so MkDocs would publish it").
    assert done.returncode != 0 or not (tmp_path / "site" / "private" / "map.json").exists(), "private map published"


def test_raw_decision_inside_docs_is_refused(tmp_path: Path) -> None:
    """A raw (unredacted) decision folder given from inside docs/: the plugin leak-scans what it renders,
    but MkDocs also publishes the raw folder itself, private values and all, unscanned."""
    write_host(tmp_path, {"decisions": ["docs/raw"]})
    raw = write_reference_decision(tmp_path / "docs" / "raw")
    done = build_host(tmp_path / "mkdocs.yml")
    leaked = sorted(
        p.relative_to(tmp_path / "site")
        for p in (tmp_path / "site").rglob("*.jsonl")
        if not str(p.relative_to(tmp_path / "site")).startswith("decisions/")
    )
    # Expected: a decision folder inside docs/ (or a raw one at all) fails the build; none of it is published.
    assert done.returncode != 0 or not leaked, (raw, leaked[:5], done.stderr[-500:])


def _a_private_map(tmp: Path, redacted: Path) -> Path:
    """A private map as redact --map writes it (its entries' values are the real, private names)."""
    out = tmp / "map.json"
    out.write_text(json.dumps({"entries": [{"class": "host", "values": ["gpu-host-17.corp.internal"]}]}))
    return out
