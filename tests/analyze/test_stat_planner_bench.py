"""The planner benchmark (bench/stat_planner.py) in its tiny mode: it plans pilots of one known world and
prints each plan's planned, simulated-again and achieved power, and what the world itself needs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_tiny_planner_benchmark_prints_every_pilot_and_the_worlds_own_need() -> None:
    out = subprocess.run([sys.executable, str(REPO / "bench" / "stat_planner.py"), "--tiny"], capture_output=True, text=True, check=True).stdout
    rows = re.findall(r"^pilot \d+: (.*)$", out, flags=re.M)
    assert len(rows) == 2
    assert all(
        re.fullmatch(r"[AB/]+ \d+ runs per block, planned \d+%, simulated again \d+%, achieved \d+%|more than 20 runs per block|refused .*", r)
        for r in rows
    )
    assert re.search(r"^pilots: 2; planned within 20 runs per block: \d; more than 20: \d; refused: \d$", out, flags=re.M)
    assert "the known world itself needs" in out
