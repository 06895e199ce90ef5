"""A small MkDocs Material host site that gains decisions through the ``evidence-kit`` plugin, built for real.

MkDocs finds plugins by their ``mkdocs.plugins`` entry point only. An installed
evidence-kit (``scripts/setup`` installs this checkout editable) registers it from
``pyproject.toml``; where the installed metadata predates the plugin (a venv shared
with another checkout), a one-file distribution that declares the same entry point
is put on ``PYTHONPATH`` for the MkDocs process, and nothing is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import yaml

import evidence_kit

PLUGIN = "evidence_kit.mkdocs_plugin:EvidenceKitPlugin"
PALETTE = {"scheme": "default", "primary": "deep purple", "accent": "amber"}


def _plugin_path(tmp: Path) -> list[str]:
    """Extra ``PYTHONPATH`` entries that make ``evidence-kit`` a MkDocs plugin of this checkout."""
    package_root = str(Path(evidence_kit.__file__).resolve().parent.parent)
    if any(ep.value == PLUGIN for ep in entry_points(group="mkdocs.plugins", name="evidence-kit")):
        return [package_root]
    dist = tmp / "ek-plugin-shim" / "evidence_kit_mkdocs_plugin-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evidence-kit-mkdocs-plugin\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(f"[mkdocs.plugins]\nevidence-kit = {PLUGIN}\n")
    return [package_root, str(dist.parent)]


def write_host(root: Path, plugin: dict, *, nav: list | None = None, extra: dict | None = None) -> Path:
    """The host site: two pages of its own, Material with a custom palette, the plugin configured as ``plugin``."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "index.md").write_text("# Team handbook\n\nHow we run the serving fleet.\n")
    (docs / "runbook.md").write_text("# Runbook\n\nRestart the engine with the usual script.\n")
    config = {
        "site_name": "Serving team",
        "theme": {"name": "material", "font": False, "palette": PALETTE},
        "extra": {"generator": False},
        "plugins": ["search", {"evidence-kit": plugin}],
        "nav": nav if nav is not None else [{"Home": "index.md"}, {"Runbook": "runbook.md"}],
        **(extra or {}),
    }
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return root / "mkdocs.yml"


def build_host(config: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the host, in a child process as a user runs it."""
    paths = _plugin_path(config.parent)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=os.pathsep.join([*paths, *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
