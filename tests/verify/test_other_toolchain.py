"""An auditor with another mkdocs-material installed verifies every figure of a site, for real.

The site is built with the installed toolchain; evidence-kit is then installed in a fresh
virtual environment with the same constraints except mkdocs-material, pinned to another
patch release from PyPI (pip's cache makes the second run quick), and its ``evidence-kit
verify`` checks the site: the figures pass against the pages' text, the files the other
release does not reproduce are named in one line naming both versions, exit 0. A figure changed in a page, and only there, and
re-signed still fails.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_kit.render.toolchain import installed_toolchain
from tests.conftest import REPO

from ..resign import resign
from .test_site_tamper import DECISION

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _other_patch(version: str) -> str:
    """The previous patch release of ``version`` (the next one of an ``x.y.0``)."""
    major, minor, patch = (int(part) for part in version.split(".")[:3])
    return f"{major}.{minor}.{patch - 1 if patch else patch + 1}"


def _source(tmp: Path) -> Path:
    """A copy of the package's source to install from (pip would write build/ into the checkout)."""
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("evidence_kit", "templates"):
        shutil.copytree(REPO / name, src / name, symlinks=True, ignore=ignore)
    return src


@pytest.fixture(scope="module")
def other_venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``(evidence-kit executable, mkdocs-material version)`` of a venv that differs from this one by Material."""
    tmp = tmp_path_factory.mktemp("other-toolchain")
    material = _other_patch(installed_toolchain()["mkdocs-material"])
    constraints = tmp / "constraints.txt"
    pinned = (REPO / "constraints.txt").read_text()
    constraints.write_text(re.sub(r"(?m)^mkdocs-material==.*$", f"mkdocs-material=={material}", pinned))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    proc = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c", str(constraints), str(_source(tmp))],
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return venv / "bin" / "evidence-kit", material


def _verify(executable: Path, site: Path, key: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(executable), "verify", str(site), "--key", str(key)], capture_output=True, text=True, timeout=300)


def test_figures_verify_with_another_material(other_venv, site_folder: Path, keypair) -> None:
    executable, material = other_venv
    built = installed_toolchain()["mkdocs-material"]
    result = _verify(executable, site_folder, keypair[1])
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("PASS figures") for line in lines), result.stdout
    skipped = f"SKIP sources   site not reproduced with the installed versions: built with mkdocs-material {built}, installed {material}; "
    found = [line for line in lines[:-1] if material in line]
    assert len(found) == 1 and found[0].startswith(skipped), result.stdout
    # The last line says it too: authenticated, and what the skipped rebuild left unproven.
    assert (
        "not proven: that each page's markup and Material's theme files (its scripts among them) are what build writes "
        f"(not reproduced with the installed versions: built with mkdocs-material {built}, installed {material}" in lines[-1]
    )
    # It says which files it could not regenerate and what still holds for them (issue 25, point 2).
    assert re.search(r"\d+ file\(s\) not regenerated, each covered by the signature", found[0]), result.stdout
    assert re.search(r"figures checked against the pages' text; \d+ file\(s\) byte for byte what build writes$", found[0]), result.stdout
    # Rebuilt with the installed Material all the same: only what that release writes differently is unproven.
    report = json.loads(
        subprocess.run(
            [str(executable), "verify", str(site_folder), "--key", str(keypair[1]), "--json"], capture_output=True, text=True, timeout=300
        ).stdout
    )
    assert report["not_regenerated"] and all(rel.startswith("public/") for rel in report["not_regenerated"]), report
    assert lines[-1].startswith(f"verified: {site_folder / 'public'}: authenticated"), result.stdout


def test_a_figure_changed_only_in_a_page_fails_with_another_material(other_venv, site_folder: Path, keypair) -> None:
    executable, _ = other_venv
    public = site_folder / "public"
    page = public / DECISION / "index.html"
    html = page.read_text()
    assert html.count("1.735") == 1
    page.write_text(html.replace("1.735", "1.705"))
    resign(public, keypair[0])  # the publisher re-signs, keeping the build's claims (toolchain, sources, history)
    result = _verify(executable, site_folder, keypair[1])
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"^FAIL figures", result.stdout, re.M), result.stdout
    assert "index.html: after" in result.stdout and "published 1.705, recomputed 1.735" in result.stdout
    assert "SKIP sources   site not reproduced with the installed versions" in result.stdout
