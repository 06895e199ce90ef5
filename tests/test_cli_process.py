"""The console script owns its process: before parsing, it imports the command's module with the cyclic garbage
collector off and freezes what the imports made, so no later collection scans them again (docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _after_import_ahead(argv: list[str]) -> str:
    """``"<collector on> <many objects frozen> <verify's checks loaded>"`` after ``import_ahead(argv)`` in a new process."""
    code = (
        "import gc, sys\n"
        "from evidence_kit.cli import import_ahead\n"
        f"import_ahead({argv!r})\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 10_000, 'evidence_kit.verify.run' in sys.modules)\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_the_command_is_imported_ahead_and_frozen_with_the_collector_back_on() -> None:
    assert _after_import_ahead(["-v", "verify", "folder", "--key", "k.pub"]) == "True True True"


def test_without_a_command_nothing_is_imported_ahead() -> None:
    assert _after_import_ahead(["--version"]) == "True False False"
    assert _after_import_ahead(["no-such-command"]) == "True False False"


def test_the_console_script_still_runs_the_command(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "evidence_kit", "verify", str(tmp_path / "absent")], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.strip().endswith("no such file or folder") and "Traceback" not in done.stderr
