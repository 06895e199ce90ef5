"""The ``evidence-kit`` command lines the commands print for pasting, written to work in a fresh shell.

A fresh shell has no virtual environment activated, so a bare ``evidence-kit`` may not be on
its PATH: the line names the ``evidence-kit`` script beside the Python that runs this one (the
one pip installed into the same environment), else that Python with ``-m evidence_kit``. Every
word is quoted for a POSIX shell (a checkout in ``~/my projects/`` stays one argument).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

__all__ = ["evidence_kit_command", "command_line"]


def evidence_kit_command() -> list[str]:
    """The words that run this evidence-kit from any shell: the absolute path of its script, or
    ``PYTHON -m evidence_kit``."""
    python = Path(sys.executable).absolute()  # not resolved: a venv's python is a link out of it
    script = python.parent / "evidence-kit"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [str(python), "-m", "evidence_kit"]


def command_line(*args: str | Path) -> str:
    """``evidence-kit ARGS`` as one line a POSIX shell runs as printed; paths are made absolute."""
    words = [str(Path(a).absolute()) if isinstance(a, Path) else a for a in args]
    return shlex.join([*evidence_kit_command(), *words])
