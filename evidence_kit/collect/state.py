"""Remember the engine a collector started, so a resumed collector can end an orphan.

A collector killed with SIGKILL cannot stop the engine it started (that runs
in its own session so its whole group can be signalled). The process group
and its start tick are written to ``.collect-engine.json`` in the output
folder; ``--resume`` ends that group first, but only if the process with that
id is still the one we started (pids are reused).
"""

from __future__ import annotations

import json
from pathlib import Path

from .lifecycle import EngineProcess, kill_group

__all__ = ["EngineState", "STATE_FILE"]

STATE_FILE = ".collect-engine.json"


def _start_ticks(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


class EngineState:
    """The state file of one output folder."""

    def __init__(self, out: Path):
        self.path = out / STATE_FILE

    def remember(self, engine: EngineProcess) -> None:
        """Record the engine's process group before anything can interrupt us."""
        pgid = engine.pgid
        if pgid is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"pgid": pgid, "start_ticks": _start_ticks(pgid)}))

    def forget(self) -> None:
        """The engine was stopped: nothing to clean up later."""
        self.path.unlink(missing_ok=True)

    def reap(self) -> bool:
        """End an engine left running by a killed collector; whether one was ended."""
        try:
            saved = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return False
        pgid = saved.get("pgid")
        ended = False
        if isinstance(pgid, int) and saved.get("start_ticks") is not None and _start_ticks(pgid) == saved["start_ticks"]:
            kill_group(pgid, grace_s=5.0)
            ended = True
        self.forget()
        return ended
