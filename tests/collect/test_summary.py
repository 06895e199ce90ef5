"""What ``collect`` ends with: each arm at a glance, read back from the journals, and the next commands."""

from __future__ import annotations

import io
import statistics
from pathlib import Path

from rich.console import Console

from evidence_kit.analyze.collected import collected_arms
from evidence_kit.collect import RichProgress
from evidence_kit.collect.progress import LineProgress
from evidence_kit.commands.collect import next_steps
from evidence_kit.present import seconds
from evidence_kit.read import load_decision
from evidence_kit.text_report import collected_text

from ..printed import printed_commands


def test_each_arm_is_summarised_from_its_own_timed_requests(reference_decision: Path) -> None:
    trial = load_decision(reference_decision).trials[0]
    arms = collected_arms(trial)
    assert [(a.seq, a.phase) for a in arms] == [(r.seq, r.phase) for r in trial.trial.arms]
    lines = collected_text(arms)
    for arm, summary in zip(trial.arms, arms):
        timed = [r for r in arm.requests if not r.warmup]
        assert summary.ok == sum(r.ok for r in timed) and summary.failed == len(timed) - summary.ok
        assert summary.e2e.median == statistics.median(r.e2e_s for r in timed if r.ok)
        row = next(line for line in lines if line.startswith(f"| {arm.ref.seq:02d} {arm.ref.arm} ({arm.ref.phase})"))
        assert f"| {seconds(summary.e2e.median)} " in row and f"{summary.ok}/{trial.trial.workload.planned_per_arm}" in row
    assert not [line for line in lines if line.startswith("warning:")]


def test_next_steps_name_the_decision_folder_the_trial_belongs_to(tmp_path: Path) -> None:
    trial = tmp_path / "decisions" / "2026-12-01-layout" / "cache-layout"
    trial.mkdir(parents=True)
    alone = next_steps(trial, "cache-layout")
    assert ["redact", str(trial), "--out", f"{trial}-redacted", "--map", f"{trial}-map.json"] in printed_commands(alone)
    assert any('trials = ["cache-layout"]' in line for line in alone)
    (trial.parent / "decision.toml").write_text('trials = ["cache-layout"]\n')
    steps = next_steps(trial, "cache-layout")
    commands = printed_commands(steps)
    decision = trial.parent
    assert ["redact", str(decision), "--out", f"{decision}-redacted", "--map", f"{decision}-map.json"] in commands
    assert ["build", f"{decision}-redacted", "--out", "site", "--known-values", f"{decision}-map.json", "--sign", "keys/signing.key"] in commands
    assert not any("decision.toml with" in line for line in steps) and ["verify", "site", "--key", "keys/signing.pub"] in commands


def test_next_steps_for_a_trial_collected_into_the_current_folder(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "trial-a").mkdir()
    monkeypatch.chdir(tmp_path / "trial-a")
    commands = printed_commands(next_steps(Path("."), "a"))
    assert ["redact", str(tmp_path / "trial-a"), "--out", str(tmp_path / "trial-a-redacted"), "--map", str(tmp_path / "trial-a-map.json")] in commands
    monkeypatch.chdir(tmp_path)
    (tmp_path / "decision.toml").write_text('trials = ["trial-a"]\n')
    commands = printed_commands(next_steps(Path("trial-a"), "trial-a"))
    assert ["redact", str(tmp_path), "--out", f"{tmp_path}-redacted", "--map", f"{tmp_path}-map.json"] in commands


def test_the_lines_while_collecting_name_the_arm_they_belong_to() -> None:
    out = io.StringIO()
    progress = RichProgress(Console(file=out, width=200))
    progress.arm_started("02 layout (candidate)", 4)
    progress.note("  gate smoke (direct): ok")
    progress.close()
    text = out.getvalue()
    assert text.index("02 layout (candidate): 4 run(s) to do") < text.index("  gate smoke (direct): ok")


def test_off_a_terminal_progress_is_plain_lines_never_wrapped() -> None:
    out = io.StringIO()
    progress = LineProgress(out)
    progress.arm_started("02 layout (candidate)", 1)
    long_note = "  check identity-equality: " + "x" * 150
    progress.note(long_note)
    progress.run_done({"run": "r1-64-c2", "ok": 4, "requests": 4, "reconciled": True}, 0.5, 0.1)
    progress.arm_done("02 layout (candidate)", True)
    lines = out.getvalue().splitlines()
    assert lines == [
        "02 layout (candidate): 1 run(s) to do",
        long_note,
        "02 layout (candidate): r1-64-c2: 4/4 ok, median e2e 0.500s, ttft 0.100s, reconciled",
        "02 layout (candidate): done",
    ]
    assert "\x1b" not in out.getvalue()  # no terminal codes in a log file
