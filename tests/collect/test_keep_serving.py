"""keep_serving: the restored engine outlives the collector, and a later --resume leaves it alone."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.collect.state import STATE_FILE
from evidence_kit.read import load_trial

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow


def test_an_engine_kept_serving_is_not_reaped_by_a_later_resume(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path / "plan.toml",
        arms={"original": sim_arm("original", keep_serving=True), "layout": sim_arm("layout-candidate")},
        workload={"repetitions": 1},
    )
    out = tmp_path / "raw"
    assert collect_trial(plan, out).ok
    pgid = load_trial(out).arms[2].header.engine.pid
    try:
        os.killpg(pgid, 0)  # still serving after the trial, as asked
        assert not (out / STATE_FILE).exists()
        assert collect_trial(plan, out, resume=True).ok
        os.killpg(pgid, 0)  # not mistaken for an orphan of an interrupted collector
    finally:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
