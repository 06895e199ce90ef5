"""The drift-corrected control is the control line where the candidate's data come from: a candidate block
with no ok request in a group adds nothing to the pooled candidate, so it must not move the point the line is
evaluated at. A/B/B/A/A/B/B/A with control medians 2.0, 2.1, 2.2, 2.4 at 1, 4, 5, 8 (slope 0.058 per arm) and
the candidate's block at 3 all failed: the candidate ran at 2, 6 and 7 (mean 5), the line there is 2.204, not
2.175 (the mean of 2, 3, 6 and 7 is 4.5)."""

from __future__ import annotations

import math
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import G, flat, write_bundle


def test_a_candidate_block_without_data_does_not_move_the_corrected_control(tmp_path: Path) -> None:
    failed = {G: [[None] * 4 for _ in range(3)]}
    arms = [flat(2.0), flat(1.8), failed, flat(2.1), flat(2.2), flat(1.8), flat(1.8), flat(2.4)]
    design = analyze(load_trial(write_bundle(tmp_path, "t", "ABBAABBA", arms))).trials[0].groups[0].design
    assert design.corrected_at_seq == 5
    assert design.corrected_control is not None and math.isclose(design.corrected_control, 2.175 + 0.058 * 0.5)
    assert design.drift_pct_per_arm is not None and math.isclose(design.drift_pct_per_arm, 2.9)
