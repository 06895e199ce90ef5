"""Rendered decision files kept between builds, keyed by the digests of what they are made from.

The MkDocs plugin renders every decision (analysis, charts, chart data, evidence copies) when MkDocs reads
its configuration: seconds per build, and per ``mkdocs serve`` rebuild. A rendering is a pure function
of the decision folders' bytes and of the renderer (evidence-kit's own files, the versions of the
libraries that draw the charts), so its key is the sha256 of all of those; an unchanged rebuild reads
the files back instead. Nothing private is kept: the entry holds the rendered files (the published ones,
already scanned when they were made, and scanned again before each build writes them), the decision
ids, the raw trial folders whose private values the build must hunt for (their paths, never the
values) and the sha256 of the chart bundle the files were rendered with (so the leak scan can tell the
bundle is vl-convert's without asking vl-convert for it again, which takes seconds). An entry is written
whole (a temporary folder renamed) and each file is checked against its sha256 when read; a damaged or
partial entry is a miss, never a page.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["Rendered", "cache_key", "load_rendered", "store_rendered"]

ENTRY = "entry.json"
# Libraries whose output is part of a rendering: the chart drawer and its bundled script, the theme.
RENDERER_DISTRIBUTIONS = ("altair", "vl-convert-python", "mkdocs", "mkdocs-material", "Markdown")
_PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Rendered:
    """What the plugin keeps of one rendering."""

    files: dict[str, bytes]  # path under the prefix -> bytes
    ids: list[str]  # the decisions' ids, in the order given
    raw_trials: list[str]  # trial folders without a redaction receipt, whose private values are hunted
    # sha256 of vl-convert's chart bundle when the decisions were rendered (the key holds vl-convert's
    # version): the leak scan knows the bundle's copy for a public file without asking vl-convert again
    vendored_sha256: str


def _tree(folder: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        out.append((path.relative_to(folder).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest()))
    return out


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "absent"


def cache_key(decisions: Sequence[Path]) -> str:
    """sha256 of every file of every decision folder (in order), of evidence-kit's own files and of the
    renderer's library versions."""
    parts = {
        "decisions": [_tree(folder) for folder in decisions],
        "renderer": _tree(_PACKAGE),
        "libraries": {name: _version(name) for name in RENDERER_DISTRIBUTIONS},
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def load_rendered(cache: Path, key: str) -> Rendered | None:
    """The entry ``key`` of ``cache``, each file checked against its sha256; None for none or a damaged one."""
    entry = cache / key
    try:
        meta = json.loads((entry / ENTRY).read_text(encoding="utf-8"))
        files = {}
        for rel, digest in meta["files"].items():
            data = (entry / "files" / rel).read_bytes()
            if hashlib.sha256(data).hexdigest() != digest:
                return None
            files[rel] = data
        return Rendered(files=files, ids=list(meta["ids"]), raw_trials=list(meta["raw_trials"]), vendored_sha256=str(meta["vendored_sha256"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store_rendered(cache: Path, key: str, rendered: Rendered) -> None:
    """Write the entry ``key`` whole (a temporary folder renamed into place); the older entries are
    removed, so the cache holds the last rendering only."""
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".entry-", dir=cache))
    try:
        for rel, data in rendered.files.items():
            (work / "files" / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / "files" / rel).write_bytes(data)
        meta = {
            "files": {rel: hashlib.sha256(data).hexdigest() for rel, data in rendered.files.items()},
            "ids": rendered.ids,
            "raw_trials": rendered.raw_trials,
            "vendored_sha256": rendered.vendored_sha256,
        }
        (work / ENTRY).write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")
        for old in cache.iterdir():
            if old.is_dir() and not old.name.startswith("."):
                shutil.rmtree(old, ignore_errors=True)
        os.replace(work, cache / key)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
