"""A decision page edited and signed again as its key holder would, then verified: in a built site recording another
toolchain (no rebuild backs the pages, so ``figures`` alone judges them), or in a host site's prefix folder."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from evidence_kit.render.toolchain import installed_toolchain

from ..conftest import CliResult
from ..resign import resign

DECISION = "2026-11-01-reference-reconstruction"
Edit = Callable[[Path], None]


def verify_built(run_cli: Callable[..., CliResult], site: Path, keypair: tuple[Path, Path], edit: Edit) -> tuple[CliResult, Path]:
    """``(report, edited page)``: the decision page of the built ``site`` (its ``public/``) edited by ``edit``."""
    page = site / "decisions" / DECISION / "index.html"
    edit(page)
    resign(site, keypair[0], toolchain={**installed_toolchain(), "mkdocs-material": "0.0.1"})
    return run_cli("verify", site, "--key", keypair[1]), page


def verify_host(
    run_cli: Callable[..., CliResult], host_master: Path, tmp_path: Path, keypair: tuple[Path, Path], edit: Edit
) -> tuple[CliResult, Path]:
    """``(report, edited page)``: the decision page of a copy of the host site's prefix folder edited by ``edit``."""
    prefix = Path(shutil.copytree(host_master, tmp_path / "decisions"))
    page = prefix / DECISION / "index.html"
    edit(page)
    resign(prefix, keypair[0])
    return run_cli("verify", prefix, "--key", keypair[1]), page
