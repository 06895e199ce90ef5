"""A real GuideLLM 0.8.1 sweep whose levels differ in prompt size (tests/import_samples/guidellm-sweep/,
made by tests/import_samples/regenerate.py guidellm-sweep against `evidence-kit sim`: concurrency 1 and 2,
prompts of 64 ± 24 tokens). The recorded (input, concurrency) pairs are the trial's groups, never their
product: a product would plan groups that never ran and then decide "no-promotion: not completed"."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from evidence_kit.cli import main
from evidence_kit.read import load_decision

from ..conftest import REPO
from .chain import decision_page, redact_build_verify, run_import

SAMPLES = REPO / "tests" / "import_samples" / "guidellm-sweep"
PHASES = ("before", "candidate", "restored")


def _doc(name: str) -> dict[str, Any]:
    return json.loads((SAMPLES / f"{name}.json").read_text())


def _level_medians() -> list[tuple[float, int]]:
    """Each benchmark's median prompt tokens over every phase's file, and its streams."""
    out = []
    for index, bench in enumerate(_doc("before")["benchmarks"]):
        prompts = [r["prompt_tokens"] for p in PHASES for r in _doc(p)["benchmarks"][index]["requests"]["successful"]]
        out.append((statistics.median(prompts), bench["config"]["strategy"]["streams"]))
    return out


def test_the_sample_is_a_sweep_whose_levels_differ_in_size() -> None:
    medians = _level_medians()
    assert [c for _, c in medians] == [1, 2]
    assert len({round(m) for m, _ in medians}) == 2, medians  # the premise: a product would invent two groups


def _import(tmp_path: Path) -> int:
    return run_import(tmp_path, {phase: [SAMPLES / f"{phase}.json"] for phase in PHASES})


def test_the_groups_are_the_recorded_pairs_never_their_product(tmp_path: Path) -> None:
    assert _import(tmp_path) == 0
    (trial,) = load_decision(tmp_path / "raw").trials
    want = [(max(1, round(m)), c) for m, c in _level_medians()]
    assert trial.trial.workload.groups() == want
    assert trial.trial.workload.cells is not None
    assert trial.trial.workload.planned_per_arm == len(want) * trial.trial.workload.requests_per_run
    for arm in trial.arms:
        assert [(r.input_nominal, r.concurrency) for r in arm.runs] == want


def test_no_phantom_group_makes_the_trial_incomplete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 0
    capsys.readouterr()
    assert main(["analyze", str(tmp_path / "raw"), "--json"]) == 0
    (trial,) = json.loads(capsys.readouterr().out)["trials"]
    assert len(trial["groups"]) == 2
    assert not [f for f in trial["findings"] if f["kind"] == "incomplete"] and trial["blocked_by"] == []
    # Every planned timed request is one the files hold: none planned for a group that never ran.
    held = sum(len(b["requests"][s]) for p in PHASES for b in _doc(p)["benchmarks"] for s in ("successful", "errored", "incomplete"))
    assert trial["timed_planned"] == held == trial["timed_ok"] + trial["timed_failed"]


@pytest.mark.slow
def test_the_page_names_guidellms_percentile_definition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(tmp_path) == 0
    site = redact_build_verify(tmp_path, capsys)
    page = decision_page(site)
    assert "nearest-rank percentile" in page and "Imported from GuideLLM" in page
