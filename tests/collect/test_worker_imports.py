"""A worker process imports only what streams: not the plan, the workload shapes or the trial runner.

Each worker pays its own imports; the ones a worker never uses (the plan and its validators, the trial
runner and what it pulls in) were part of why two workers cost more CPU per request than one process.
"""

from __future__ import annotations

from tests.loaded_modules import loaded_after

UNUSED = ("evidence_kit.collect.plan", "evidence_kit.collect.trial_runner", "evidence_kit.collect.progress")


def test_a_worker_process_does_not_import_the_plan_or_the_trial_runner() -> None:
    assert loaded_after("import evidence_kit.collect.worker_process", UNUSED) == []


def test_the_package_still_offers_them_by_name() -> None:
    assert loaded_after("from evidence_kit.collect import collect_trial, load_plan, Progress", UNUSED) == list(UNUSED)
