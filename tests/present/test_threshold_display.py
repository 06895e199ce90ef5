"""A comparison table row must not show the threshold itself for a change that does not clear it."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.present import comparison_rows
from evidence_kit.read import load_trial
from tests.analyze.bundle import flat, write_bundle


def test_a_change_that_does_not_clear_is_not_shown_as_the_threshold(tmp_path: Path) -> None:
    # 1.80008 / 2.0: 9.996% faster. The row said "10.00% faster | 10.00% faster | ... | no-win" under a 10% rule.
    bundle = write_bundle(tmp_path, "t", "ABA", [flat(2.0), flat(1.80008), flat(2.0)])
    trial = analyze(load_trial(bundle)).trials[0]
    assert not trial.groups[0].verdict.win
    row = comparison_rows(trial)[0]
    assert "10.00% faster" not in row[1:3], row
