"""Kill -9 of the collector inside a multi-turn arm, then --resume. The run the kill cut is
journalled by no half: every (run, conversation, turn) is in the journals exactly once, in its conversation's
order, the histories as long as in the arms collected without a kill, and the resumed trial verifies."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.read import load_trial
from tests.collect.conftest import write_plan
from tests.collect.test_resume import _kill_collector_mid_arm

pytestmark = pytest.mark.slow


def test_kill_9_inside_a_multiturn_arm_then_resume_loses_and_doubles_no_turn(tmp_path: Path, run_cli) -> None:
    plan = write_plan(
        tmp_path / "plan.toml",
        gates=[],
        workload={
            "repetitions": 3,
            "requests_per_run": 2,
            "concurrency": [1, 2],
            "turns": 3,
            "max_tokens": 16,
            "session_header": "X-Session-Id",
            "warmup_requests": 0,
        },
    )
    out = tmp_path / "raw"
    journal = out / "journals" / "01-original-before.jsonl"
    kept = _kill_collector_mid_arm(plan, out, journal)
    lines = journal.read_bytes().splitlines(keepends=True)
    last_run = max(i for i, line in enumerate(lines) if line.startswith(b'{"type":"run"') and line.endswith(b"\n"))
    committed = b"".join(lines[: last_run + 1])  # the runs the kill left whole; a run it cut has no half kept
    result = collect_trial(plan, out, resume=True)
    assert result.ok, result.problems
    evidence = load_trial(out)
    wl = evidence.trial.workload
    assert wl.planned_per_arm == 2 * 3 * 2 * 3
    for arm in evidence.arms:
        turns = Counter((r.run, r.conversation, r.turn) for r in arm.timed)
        assert len(turns) == wl.planned_per_arm and set(turns.values()) == {1}
    before = evidence.arms[0]
    assert journal.read_bytes().startswith(committed) and sum(bool(run.resumed) for run in before.runs) == 1
    assert len(before.runs) == 6 > kept

    # The same conversations, histories grown alike: the resumed arm's prompts are the restored arm's, turn by turn
    # (the same engine profile, a fresh process).
    def lengths(arm) -> list[tuple[str, int | None, int | None, int | None]]:
        return sorted((r.run, r.conversation, r.turn, r.prompt_tokens) for r in arm.timed)

    assert lengths(before) == lengths(evidence.arms[2])
    verified = run_cli("verify", out)
    assert "PASS contract" in verified.out and "PASS figures" in verified.out, verified.out
