"""An interval drawn from one run (or one request) per arm says nothing about the run-to-run variation the
run-level method exists to sample; it must not let ``significant`` or ``bound`` promote.

With one request per arm the "interval" is the point ratio (0.750-0.750), the smallest resolvable change is
"0.00%", and ``confidence = "bound"`` - the most conservative rule - promotes on three requests. With one run
per arm the run-level interval is the request-level one the docs warn against ("the interval comes out too
narrow, which is how a noisy difference gets published as a win"). Fixed: a run-level interval needs at least two
runs with values in each arm, any interval two values (else not estimable: only ``point`` can win, and then
within the noise)."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import G, write_bundle


def test_one_request_per_arm_does_not_promote_under_bound(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "t", "ABA", [{G: [[2.0]]}, {G: [[1.5]]}, {G: [[2.0]]}], rule={"min_improvement": 0.10, "confidence": "bound"})
    trial = analyze(load_trial(bundle)).trials[0]
    assert trial.outcome == "no-promotion", (trial.groups[0].intervals, trial.groups[0].detectable_pct)


def test_one_run_per_arm_has_no_run_level_interval(tmp_path: Path) -> None:
    runs = lambda v: [[v - 0.02, v - 0.01, v + 0.01, v + 0.02]]  # noqa: E731
    bundle = write_bundle(
        tmp_path, "t", "ABA", [{G: runs(2.0)}, {G: runs(1.7)}, {G: runs(2.0)}], rule={"min_improvement": 0.10, "confidence": "significant"}
    )
    group = analyze(load_trial(bundle)).trials[0].groups[0]
    assert all(i.low is None for i in group.intervals), group.intervals


def test_one_run_per_arm_still_wins_on_a_point_rule_said_within_the_noise(tmp_path: Path) -> None:
    runs = lambda v: [[v - 0.02, v - 0.01, v + 0.01, v + 0.02]]  # noqa: E731
    bundle = write_bundle(tmp_path, "t", "ABA", [{G: runs(2.0)}, {G: runs(1.7)}, {G: runs(2.0)}])
    trial = analyze(load_trial(bundle)).trials[0]
    verdict = trial.groups[0].verdict
    assert verdict.win and verdict.within_noise and trial.groups[0].detectable_pct is None
    assert [f.kind for f in trial.findings][:2] == ["win", "win-within-noise"]


def test_an_interval_that_could_not_be_drawn_is_not_estimable_not_n_s(tmp_path: Path) -> None:
    from evidence_kit.present import comparison_rows

    runs = lambda v: [[v - 0.02, v - 0.01, v + 0.01, v + 0.02]]  # noqa: E731
    bundle = write_bundle(tmp_path, "t", "ABA", [{G: runs(2.0)}, {G: runs(1.7)}, {G: runs(2.0)}])
    row = comparison_rows(analyze(load_trial(bundle)).trials[0])[0]
    assert row[3:5] == ["not estimable", "not estimable"], row  # was '—–— (n.s.)'


def test_the_words_say_the_interval_could_not_be_drawn(tmp_path: Path) -> None:
    from evidence_kit.present import comparison_rows
    from evidence_kit.present.wording import detectable_sentence

    runs = lambda v: [[v - 0.02, v - 0.01, v + 0.01, v + 0.02]]  # noqa: E731
    bundle = write_bundle(tmp_path, "t", "ABA", [{G: runs(2.0)}, {G: runs(1.7)}, {G: runs(2.0)}])
    trial = analyze(load_trial(bundle)).trials[0]
    # was 'win (point estimates only: an interval includes no change)' with no interval at all
    assert comparison_rows(trial)[0][-1] == "win (point estimates only: no run-level interval could be drawn)"
    # was 'differences under not estimable (~8K/C1) are not resolvable with this data'
    assert "under not estimable" not in detectable_sentence(trial)
    assert "not estimable at ~8K/C1" in detectable_sentence(trial)
