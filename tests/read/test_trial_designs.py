"""trial.json of a longer design: every rule of the arm list, each broken once, is one located error (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.read import load_trial


def _bundle(tmp_path: Path, design: str) -> Path:
    medians = tuple(2.0 if letter == "A" else 1.8 for letter in design)
    spec = {**REFERENCE_TRIALS["cache-layout"], "title": "designs", "e2e": {g: medians for g in GROUPS}, "slots": tuple(100 for _ in design)}
    return write_trial_bundle(tmp_path, "t", spec, design=design)


def test_longer_designs_load_with_their_blocks(tmp_path: Path) -> None:
    evidence = load_trial(_bundle(tmp_path, "ABABA"))
    assert [(a.ref.phase, a.ref.block) for a in evidence.arms] == [
        ("before", 1),
        ("candidate", 1),
        ("restored", 1),
        ("candidate", 2),
        ("restored", 2),
    ]
    assert evidence.trial.design == "A/B/A/B/A"
    assert [evidence.trial.pooled_in(a.ref) for a in evidence.arms] == ["before", "candidate", None, "candidate", "restored"]


def _edit(position: int, **fields):
    def edit(trial: dict) -> None:
        trial["arms"][position].update(fields)
        for key, value in fields.items():
            if value is None:
                del trial["arms"][position][key]

    return edit


CASES = {
    "no block": (_edit(2, block=None), "arm 3 has no block"),
    "wrong block": (_edit(3, block=1), "arm 4 has block 1; it is arm 2 of phase candidate"),
    "middle control called before": (_edit(2, phase="before"), "arm 3 must have phase restored"),
    "another control arm": (_edit(2, arm="elsewhere"), "the restored arm must be the same arm as the before arm"),
    "another candidate arm": (_edit(3, arm="elsewhere"), "every candidate arm must be the same arm"),
    "ends with the candidate": (_edit(4, role="candidate", phase="candidate", block=3), "the first and the last arm must be the control"),
    "seq out of order": (_edit(1, seq=4), "arm seq must be 1, 2, 3, ... in list order"),
    "shared journal": (_edit(4, journal="journals/03-original-restored.jsonl"), "each arm needs its own journal"),
    "a control second": (
        lambda trial: (
            trial["arms"][1].update(arm=trial["arms"][0]["arm"], role="control", phase="restored", block=1),
            trial["arms"][2].update(block=2),
            trial["arms"][4].update(block=3),
        ),
        "the second arm must be the candidate",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_broken_arm_list_is_located(tmp_path: Path, run_cli, case: str) -> None:
    bundle = _bundle(tmp_path, "ABABA")
    path = bundle / "trial.json"
    trial = json.loads(path.read_text())
    edit, message = CASES[case]
    edit(trial)
    path.write_text(json.dumps(trial, indent=2))
    result = run_cli("analyze", bundle)
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {path}"), result.err
    assert message in result.err


def test_a_b_a_needs_no_block_but_a_right_one_is_fine(tmp_path: Path, run_cli) -> None:
    bundle = _bundle(tmp_path, "ABA")
    path = bundle / "trial.json"
    trial = json.loads(path.read_text())
    assert all("block" not in arm for arm in trial["arms"])
    for arm in trial["arms"]:
        arm["block"] = 1
    path.write_text(json.dumps(trial))
    assert run_cli("analyze", bundle).code == 0
