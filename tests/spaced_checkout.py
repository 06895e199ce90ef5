"""A checkout of this package at a path with spaces and non-ASCII characters, and a venv inside it, as a
newcomer's ``~/my projects/evidence kit ü/.venv`` would be.

The package tree (``evidence_kit/``, ``templates/``, ``pyproject.toml``, ``README.md``) is copied there and
installed into the venv as an editable install is: a ``.pth`` line naming the checkout, and the
``evidence-kit`` console script written by pip's own script maker (which, for an interpreter path with a
space, writes the ``/bin/sh`` trampoline pip installs). pip itself is not run: building the project needs
setuptools>=77 from the registry. Nor are the third-party dependencies installed again: the venv reads them
from this interpreter's site-packages (one more ``.pth`` line), so the checkout takes a second.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from .conftest import REPO

__all__ = ["CHECKOUT_NAME", "spaced_checkout"]

CHECKOUT_NAME = Path("my projects") / "evidence kit ü"
_TREE = ("evidence_kit", "templates", "pyproject.toml", "README.md")
ENTRY = "evidence-kit = evidence_kit.cli:run"  # pyproject.toml's [project.scripts]


def spaced_checkout(root: Path) -> tuple[Path, Path]:
    """``(checkout, venv)`` under ``root``: the package copied to ``root/my projects/evidence kit ü`` and
    installed into its ``.venv``."""
    checkout = root / CHECKOUT_NAME
    checkout.mkdir(parents=True)
    for name in _TREE:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, checkout / name)
    venv = checkout / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    done = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True, capture_output=True, text=True)
    site_packages = Path(done.stdout.strip())
    # The dependencies as this interpreter has them installed (evidence_kit is not among them: this
    # interpreter's editable hook lives in a .pth file there, which a path added this way does not run).
    (site_packages / "evidence-kit-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    (site_packages / "evidence-kit-checkout.pth").write_text(f"{checkout}\n", encoding="utf-8")
    # Run by the venv's own python, as pip runs inside the environment it installs into: the script's
    # interpreter is that python, quoted by the maker where the path needs it.
    make = f"from pip._vendor.distlib.scripts import ScriptMaker as M; m = M(None, {str(venv / 'bin')!r}); m.variants = {{''}}; m.make({ENTRY!r})"
    subprocess.run([python, "-c", make], check=True, cwd=root)
    return checkout, venv
