"""A trial's charts kept between builds, keyed by the digest of what they are drawn from.

Drawing a trial's charts (Altair's specs, then vl-convert's SVGs) is most of a decision's rendering.
The charts are a function of the trial's analysis and telemetry rows, of evidence-kit's own code and of
the toolchain (:func:`.toolchain.installed_toolchain`) and fonts vl-convert measures text with, so an
entry's key is the sha256 of all of those. A site rebuilt with one decision more draws that one decision's
charts; the others, and any trial whose data another already has, are read back.

An entry is one JSON file written whole (a temporary file renamed into place, so concurrent builds that
share the folder each see a whole entry or none) that names its key and the sha256 of its charts; an
entry that is unreadable, names another key or whose charts do not match their digest is a miss, drawn
again and replaced. A build's bytes are the same with the cache, without it and with a damaged one.
``verify`` never reads it: it draws every chart afresh and compares the published SVGs with them.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..analyze.report import TrialAnalysis
from ..fsutil import atomic_write
from .charts import Chart, charts_from_json, charts_json, trial_charts
from .toolchain import installed_toolchain

__all__ = ["ChartCache", "default_cache_folder", "CACHE_ENV", "FORMAT"]

FORMAT = 1  # raised whenever an entry's layout changes, so an older entry is never read as a newer one
CACHE_ENV = "EVIDENCE_KIT_CHART_CACHE"  # a folder, or "off"
MAX_ENTRIES = 512  # the oldest entries past this many are removed when one is written
_PACKAGE = Path(__file__).resolve().parents[1]
# Where fontconfig (and vl-convert's font database) finds the fonts that measure the charts' text.
_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")


def default_cache_folder() -> Path | None:
    """``$EVIDENCE_KIT_CHART_CACHE``, or ``charts/`` in the user's cache folder (``$XDG_CACHE_HOME/evidence-kit``,
    else ``~/.cache/evidence-kit``); None when the variable is ``off``."""
    chosen = os.environ.get(CACHE_ENV, "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evidence-kit" / "charts"


def _files_digest(folders: list[Path], pattern: str) -> str:
    """sha256 over the path, size and contents' digest (or modification time, for ``fonts``) of the files under ``folders``."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(p for p in folder.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts):
            stat = path.stat()
            body = hashlib.sha256(path.read_bytes()).hexdigest() if pattern == "*.py" else str(stat.st_mtime_ns)
            digest.update(f"{path.relative_to(folder).as_posix()}\0{stat.st_size}\0{body}\n".encode())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _renderer() -> dict[str, Any]:
    """What every chart depends on besides its data: evidence-kit's code, the toolchain, the installed fonts."""
    fonts = [Path(d).expanduser() for d in _FONT_DIRS if Path(d).expanduser().is_dir()]
    return {
        "format": FORMAT,
        "code": _files_digest([_PACKAGE], "*.py"),
        "toolchain": installed_toolchain(),
        "fonts": _files_digest(fonts, "*"),
    }


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        return


class ChartCache:
    """Draws a trial's charts, or reads them back from ``folder`` (None: always draws, keeps nothing)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.hits = 0
        self.misses = 0

    def key(self, trial: TrialAnalysis, telemetry: list[dict[str, Any]] | None) -> str:
        """The sha256 of the trial's analysis, its telemetry rows and the renderer."""
        return _digest({"trial": trial.model_dump(mode="json", by_alias=True), "telemetry": telemetry or [], "renderer": _renderer()})

    def trial_charts(self, trial: TrialAnalysis, telemetry: list[dict[str, Any]] | None = None) -> dict[str, Chart]:
        """What :func:`.charts.trial_charts` draws for the trial, read back when an entry has it."""
        if self.folder is None:
            return trial_charts(trial, telemetry)
        key = self.key(trial, telemetry)
        path = self.folder / key[:2] / f"{key}.json"
        cached = self._read(path, key)
        if cached is not None:
            self.hits += 1
            _touch(path)  # the entries pruned first are those read or written longest ago
            return cached
        self.misses += 1
        charts = trial_charts(trial, telemetry)
        self._write(path, key, charts)
        return charts

    @staticmethod
    def _read(path: Path, key: str) -> dict[str, Chart] | None:
        try:
            entry = json.loads(path.read_bytes())
            if entry["key"] != key or entry["format"] != FORMAT or _digest(entry["charts"]) != entry["sha256"]:
                return None
            return charts_from_json(entry["charts"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None

    def _write(self, path: Path, key: str, charts: dict[str, Chart]) -> None:
        """Keep the entry (a cache that cannot be written is no cache, never a failed build)."""
        body = charts_json(charts)
        entry = {"format": FORMAT, "key": key, "sha256": _digest(body), "charts": body}
        try:
            atomic_write(path, json.dumps(entry, sort_keys=True).encode("utf-8"))
            self._prune()
        except OSError:
            return

    def _prune(self) -> None:
        assert self.folder is not None
        entries = list(self.folder.glob("*/*.json"))
        if len(entries) <= MAX_ENTRIES:
            return
        dated = []
        for path in entries:
            try:
                dated.append((path.stat().st_mtime_ns, path))
            except OSError:
                continue
        for _, path in sorted(dated)[: len(dated) - MAX_ENTRIES]:
            path.unlink(missing_ok=True)
