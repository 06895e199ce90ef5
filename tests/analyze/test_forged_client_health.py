"""Client health records no collector can write, which the journal contract accepts and which dodge the CPU
bound: the trial promotes as if its client had been healthy. The contract already refuses a lag p50 above its
max, so it means to refuse the impossible; these slip through.

Expected for each: exit 2 with one located line (the journal and line of the run record), or the CPU bound
judged (the run client-saturated, promotion blocked). Never a promotion judged healthy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.errors import BadInput
from evidence_kit.read import load_decision
from tests.analyze.health_bundle import health_bundle, process

# Every run of the bundle: 4 requests sent 0.25 s apart, each 0.2-0.25 s long: the run spans 0.95-1.0 s.
CASES: dict[str, dict[str, Any]] = {
    # The loop thread used 5 s of CPU in a run of 0 s: loop_cpu_share is "not derived" and never judged.
    "cpu-in-zero-wall": {"wall_s": 0.0, "processes": [process(cpu_s=5.0, loop_cpu_s=5.0)]},
    # The run's requests span ~1 s, its wall time says 1000 s: a loop busy the whole run (0.95 s of CPU)
    # reads as a share of 0.00095.
    "wall-longer-than-the-run": {"wall_s": 1000.0, "processes": [process(cpu_s=0.95, loop_cpu_s=0.95, loop_lag_samples=99000)]},
    # A sampler that wakes every 10 ms woke once in a 100 s run, 1 ms late: impossible unless the loop was
    # blocked (which would be one huge lag); a forger's way to a clean lag.
    "one-wake-in-100-s": {
        "wall_s": 100.0,
        "processes": [process(cpu_s=0.5, loop_cpu_s=0.5, loop_lag_samples=1, loop_lag_p50_s=0.001, loop_lag_max_s=0.001)],
    },
    # The loop's thread used more CPU than its whole process (health.py says it is never recorded so).
    "thread-above-process": {"wall_s": 1.0, "processes": [process(cpu_s=0.0, loop_cpu_s=0.5)]},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_impossible_health_is_refused_or_judged(tmp_path: Path, case: str) -> None:
    health = CASES[case]
    folder = health_bundle(tmp_path / "d", client=lambda seq, run: health if seq == 2 else {"wall_s": 1.0, "processes": [process()]})
    try:
        trial = analyze(load_decision(folder)).trials[0]
    except BadInput as err:
        assert err.line is not None and "02-" in str(err.path), err  # located at the candidate's run record
        return
    assert trial.outcome != "promote", f"{case}: promoted; candidate run 1 judged {trial.runs[5].client}"
