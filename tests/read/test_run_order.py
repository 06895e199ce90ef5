"""order = "randomised": one shuffle per repetition from the seed, the same in every arm, and journals that
must follow it (the reader refuses one that does not, with file and line)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evidence_kit.errors import BadInput
from evidence_kit.examples.reference import GROUPS, REFERENCE_TRIALS, write_trial_bundle
from evidence_kit.model import Workload
from evidence_kit.read import load_trial


def _workload(**fields) -> Workload:
    base = {
        "input_nominal": [256, 1024, 4096],
        "concurrency": [1, 2, 4],
        "repetitions": 3,
        "requests_per_run": 4,
        "max_tokens": 16,
        "temperature": 0.0,
        "seed": 7,
        "order": "randomised",
    }
    return Workload.model_validate({**base, **fields})


def _by_hand(seed: int, repetition: int, groups: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The documented order: sorted by sha256 of evidence-kit/order/v1, seed, repetition, input, concurrency (U+001F)."""

    def key(group: tuple[int, int]) -> str:
        text = "\x1f".join(["evidence-kit/order/v1", str(seed), str(repetition), str(group[0]), str(group[1])])
        return hashlib.sha256(text.encode()).hexdigest()

    return sorted(groups, key=key)


def test_randomised_order_is_the_documented_shuffle_and_differs_by_repetition() -> None:
    wl = _workload()
    orders = [wl.groups_in(rep) for rep in (1, 2, 3)]
    assert orders == [_by_hand(7, rep, wl.groups()) for rep in (1, 2, 3)]
    assert all(sorted(order) == sorted(wl.groups()) for order in orders)  # a permutation: nothing lost or doubled
    assert len({tuple(order) for order in orders}) == 3  # each repetition its own order
    assert orders[0] != wl.groups()
    assert _workload().groups_in(2) == orders[1]  # reproducible from the seed alone
    assert _workload(seed=8).groups_in(1) != orders[0]
    assert wl.run_order() == [(rep, i, c) for rep in (1, 2, 3) for i, c in orders[rep - 1]]


def test_fixed_order_is_plan_order() -> None:
    for wl in (_workload(order="fixed"), _workload(order=None)):
        assert wl.groups_in(2) == wl.groups() == [(i, c) for i in (256, 1024, 4096) for c in (1, 2, 4)]


def test_randomised_order_needs_a_seed() -> None:
    with pytest.raises(ValueError, match="needs a seed"):
        _workload(seed=None)


def _bundle(tmp_path: Path) -> Path:
    """A randomised A/B/A bundle: trial.json says randomised (seed 3), every journal runs in that order."""
    spec = {**REFERENCE_TRIALS["cache-layout"], "title": "order", "e2e": {g: (2.0, 1.8, 2.0) for g in GROUPS}}
    bundle = write_trial_bundle(tmp_path, "t", spec)
    trial = json.loads((bundle / "trial.json").read_text())
    trial["workload"].update(seed=3, order="randomised")
    (bundle / "trial.json").write_text(json.dumps(trial))
    order = [f"r{rep}-{i}-c{c}" for rep, i, c in Workload.model_validate(trial["workload"]).run_order()]
    for journal in (bundle / "journals").iterdir():
        _reorder(journal, order)
    return bundle


def _reorder(journal: Path, order: list[str]) -> None:
    """Rewrite a journal's runs (requests, then the run record) in ``order``; everything else stays put."""
    lines = journal.read_text().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    units: dict[str, list[str]] = {}
    head, tail = [], []
    for line, record in zip(lines, records):
        run = record.get("run") if record["type"] in ("request", "run") and record.get("repetition") else None
        if run:
            units.setdefault(run, []).append(line)
        else:
            (tail if units else head).append(line)
    journal.write_text("".join(head + [line for run in order for line in units[run]] + tail))


def test_the_reader_follows_the_recorded_order(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    evidence = load_trial(bundle)
    want = evidence.trial.workload.run_order()
    for arm in evidence.arms:
        assert [(r.repetition, r.input_nominal, r.concurrency) for r in arm.runs] == want


def test_a_journal_out_of_the_recorded_order_is_refused_with_its_line(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    journal = bundle / "journals/02-layout-candidate-candidate.jsonl"
    order = [f"r{rep}-{i}-c{c}" for rep, i, c in load_trial(bundle).trial.workload.run_order()]
    swapped = [order[1], order[0], *order[2:]]  # the first two runs of repetition 1 trade places
    _reorder(journal, swapped)
    lines = journal.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if json.loads(text)["type"] == "run" and json.loads(text)["run"] == order[0])
    with pytest.raises(BadInput) as caught:
        load_trial(bundle)
    assert caught.value.path == str(journal) and caught.value.line == line
    assert f"run {order[0]!r} comes after run {order[1]!r}" in caught.value.message


def test_a_fixed_trial_is_not_held_to_an_order(tmp_path: Path) -> None:
    spec = {**REFERENCE_TRIALS["cache-layout"], "title": "order", "e2e": {g: (2.0, 1.8, 2.0) for g in GROUPS}}
    bundle = write_trial_bundle(tmp_path, "t", spec)
    journal = bundle / "journals/01-original-before.jsonl"
    runs = [f"r{rep}-{i}-c{c}" for rep in (1, 2, 3) for i, c in GROUPS]
    _reorder(journal, list(reversed(runs)))
    assert [r.run for r in load_trial(bundle).arms[0].runs] == list(reversed(runs))
