"""The verdict benchmark (bench/stat_verdicts.py) in its tiny mode: it runs the rule itself, and a bound win
is never where the same data's point rule does not win."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_tiny_benchmark_prints_every_part_and_bound_never_promotes_more_than_point() -> None:
    out = subprocess.run([sys.executable, str(REPO / "bench" / "stat_verdicts.py"), "--tiny"], capture_output=True, text=True, check=True).stdout
    assert out.count("share of trials promoted") == 4 and "launch-level interval coverage" in out
    rows = re.findall(r"^(\d+)% \| ([\d.]+)% \| ([\d.]+)%$", out, flags=re.M)
    assert len(rows) == 4 * 7
    assert all(float(bound) <= float(point) for _, bound, point in rows)  # the same seeded trials judged both ways
    zero_point = [float(point) for true, _, point in rows if true == "8"]
    assert max(zero_point) > 20  # point promotes a true 8 % change under a 10 % rule often: no error control
