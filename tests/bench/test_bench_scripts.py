"""Every benchmark script still runs: each in a tiny mode (its own options, the smallest load that reaches
every code path it prints), to its end with exit 0 and its table. Timing is not asserted here (bench/ is for
numbers, with the command, the baseline measured in the same run and the load); a script that rots fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Each script's tiny mode: the options that make its run small (a new script needs an entry, or the test below fails).
TINY: dict[str, list[str]] = {
    "build_site.py": ["--decisions", "1"],
    "client_health.py": ["--levels", "1", "--requests", "2", "--time-scale", "50"],
    "collect_client.py": ["--levels", "1", "--time-scale", "50"],
    "collect_cpu.py": ["--tiny"],
    "collect_ray.py": ["--levels", "2", "--rounds", "1", "--workers", "1"],
    "collect_workers.py": ["--levels", "2", "--rounds", "1"],
    "open_loop.py": ["--rates", "20", "--requests", "10"],
    "plugin_cache.py": ["--repeat", "1"],
    "redact_throughput.py": ["--size-mb", "1"],
    "sim_profiles.py": ["--time-scale", "50"],
    "sim_throughput.py": ["--streams", "1", "--tokens", "20"],
    "stat_coverage.py": ["--trials", "4", "--shapes", "3x4", "--scenarios", "mixed"],
    "stat_interval_methods.py": ["--trials", "4"],
    "stat_planner.py": ["--tiny"],
    "stat_small_runs.py": ["--trials", "4", "--cells", "mixed:3"],
    "stat_verdicts.py": ["--tiny"],
    "trace_replay.py": ["--requests", "10"],
    "verify_throughput.py": ["--size-mb", "1", "--repeat", "1"],
    "warm_connections.py": ["--levels", "2", "--rounds", "1"],
}
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if p.name != "__init__.py")


def test_every_bench_script_has_a_tiny_mode() -> None:
    assert SCRIPTS == sorted(TINY), f"bench scripts without a tiny mode here: {sorted(set(SCRIPTS) - set(TINY))}"


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_each_bench_script_runs_to_its_end_in_its_tiny_mode(script: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *TINY[script]], cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, f"{script} exited {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip(), f"{script} printed nothing"
