"""A command run with its stderr on a pseudo-terminal, as a user at a terminal runs it."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

ERASE = "\r\x1b[2K"  # what a status line writes before each step and at the end


def on_a_terminal(*args: str) -> tuple[int, str, str]:
    """``evidence-kit ARGS`` with its stderr on a pseudo-terminal; exit code, stdout and what the terminal got."""
    master, slave = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "evidence_kit", *args], stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal's other end closed: the command is over
            break
        if not chunk:
            break
        got += chunk
    out, _ = child.communicate(timeout=600)
    os.close(master)
    return child.returncode, out, got.decode()
