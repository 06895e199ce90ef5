"""Resume with a different N; idle workers (more workers than a run's concurrency); orphans after a failure."""

from __future__ import annotations

import signal

import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.read import load_trial
from tests.collect.conftest import write_plan
from tests.collect.test_workers import _alive, _collect, _every_request_once, _wait_for_runs, _workers_of

pytestmark = pytest.mark.slow


def test_resume_with_other_workers_and_idle_workers(tmp_path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 2, "workers": 3, "concurrency": [1, 3]})
    out = tmp_path / "raw"
    collector = _collect(plan, out)
    _wait_for_runs(out / "journals" / "01-original-before.jsonl", 2, collector)
    workers = _workers_of(collector.pid)
    collector.send_signal(signal.SIGKILL)
    collector.communicate(timeout=10)
    result = collect_trial(plan, out, resume=True, workers=2)
    assert result.ok, result.problems
    assert not any(_alive(p) for p in workers)
    _every_request_once(out, 12)
    counts = sorted({len(run.client.processes) for arm in load_trial(out).arms for run in arm.runs if run.client})
    # Expected: each run lists the collector + the workers that existed for it (4 before the kill, 3 after).
    assert set(counts) <= {3, 4} and 3 in counts, counts
