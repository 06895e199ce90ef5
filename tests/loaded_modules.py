"""Which of some modules a fresh interpreter has loaded after running a snippet (for deferred-import tests)."""

from __future__ import annotations

import subprocess
import sys


def loaded_after(code: str, watched: tuple[str, ...]) -> list[str]:
    """The modules of ``watched``, in its order, that ``code`` run in a new process has imported."""
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {watched!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.split()
