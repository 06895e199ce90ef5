"""Run MkDocs on a generated site: strict, offline, reproducible.

MkDocs runs in a child process so its logging and strict-mode counting stay
its own. ``SOURCE_DATE_EPOCH`` pins the sitemap's dates and the gzip header's
time, so the same docs give the same bytes. ``build`` and ``verify``'s rebuild
both run MkDocs through :func:`run_mkdocs`, so both get the same files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

from ..errors import CheckFailed
from .layout import PUBLIC_DIR

__all__ = ["run_mkdocs", "source_date_epoch"]


def source_date_epoch(dates: list[str]) -> int:
    """Midnight UTC of the newest decision date: a build time taken from the evidence, not the clock."""
    newest = max(date.fromisoformat(d) for d in dates) if dates else date(2026, 1, 1)
    return int(datetime(newest.year, newest.month, newest.day, tzinfo=UTC).timestamp())


def run_mkdocs(config: Path, epoch: int) -> None:
    """``mkdocs build --strict`` of ``config`` into ``public/`` beside it, without the sitemaps; a warning
    or error fails the build with its first line."""
    config = config.resolve()
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch), NO_MKDOCS_2_WARNING="1", PYTHONHASHSEED="0")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "--config-file", str(config)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
        first = lines[0] if lines else (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise CheckFailed(f"mkdocs build --strict failed: {first}", config)
    _drop_empty_sitemaps(config.parent / PUBLIC_DIR)


def _drop_empty_sitemaps(public: Path) -> None:
    """Without ``site_url`` (which an offline site cannot have) MkDocs' sitemap lists nothing; drop it."""
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        (public / name).unlink(missing_ok=True)
