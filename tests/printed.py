"""Run a command line evidence-kit printed, as a user pastes it into a fresh shell: ``/bin/sh -c LINE`` with
no virtual environment activated (PATH=/usr/bin:/bin) and nothing else of the test's environment."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Iterator

__all__ = ["fresh_env", "printed_commands", "run_printed", "served_printed"]


def fresh_env() -> dict[str, str]:
    """A login shell's minimum: PATH without any venv, HOME, a UTF-8 locale."""
    return {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}


def printed_commands(lines: list[str]) -> list[list[str]]:
    """The evidence-kit command lines among printed ``lines``, each as the arguments after the program
    (``…/bin/evidence-kit`` or ``PYTHON -m evidence_kit``), split as /bin/sh splits them, comments cut."""
    out = []
    for line in lines:
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue  # prose with an apostrophe
        if words and words[0].endswith("/evidence-kit"):
            out.append(words[1:])
        elif words[1:3] == ["-m", "evidence_kit"]:
            out.append(words[3:])
    return out


def run_printed(line: str, *, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The printed ``line`` run by ``/bin/sh`` in a fresh environment."""
    return subprocess.run(["/bin/sh", "-c", line], env=fresh_env(), capture_output=True, text=True, timeout=timeout)


@contextlib.contextmanager
def served_printed(line: str) -> Iterator[str]:
    """Start the printed ``serve`` line in a fresh shell and yield the base URL it answers on; stop it after.

    The line serves on its default port, 8000; when something else on this machine holds that port
    (another test, another user) the same line is run with ``--port 0`` appended, the one change made.
    """
    for attempt in (line, line + " --port 0"):
        proc = subprocess.Popen(
            ["/bin/sh", "-c", attempt], env=fresh_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        try:
            first = proc.stdout.readline()  # type: ignore[union-attr]
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
            if match:
                yield f"http://127.0.0.1:{match.group(1)}/"
                return
            err = proc.stderr.read()  # type: ignore[union-attr]
            assert "cannot listen on 127.0.0.1:8000" in err and attempt == line, f"{attempt!r} did not serve: {first!r} {err!r}"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
