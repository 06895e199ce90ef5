"""An engine that dies during an arm fails the arm's process-stable check (it never passes as stable)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evidence_kit.read import load_trial

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "wait, sign",
    [
        ("wait $!", "status 137"),  # the shell reports the engine's death
        ("wait", "/metrics went unanswered"),  # it exits 0, as a detaching start does: seen from /metrics
    ],
)
def test_a_managed_engine_killed_mid_arm_fails_process_stable(tmp_path: Path, wait: str, sign: str) -> None:
    pid_file = tmp_path / "engine.pid"
    dying = sim_arm("original", time_scale=4)
    dying["start"] += f" & echo $! > {pid_file}; {wait}"
    plan = write_plan(tmp_path / "plan.toml", arms={"original": dying, "layout": sim_arm("layout-candidate")}, workload={"repetitions": 3})
    out = tmp_path / "raw"
    journal = out / "journals" / "01-original-before.jsonl"
    collector = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while (not journal.exists() or b'{"type":"run"' not in journal.read_bytes()) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    stdout, _ = collector.communicate(timeout=120)

    before = load_trial(out).arms[0]
    assert [r for r in before.timed if not r.ok], "the kill must land inside the first arm"
    stable = next(c for c in before.checks if c.name == "process-stable")
    assert not stable.ok and sign in stable.detail
    assert collector.returncode == 1 and "check process-stable failed" in stdout
