"""The process-stable check's history: which engine processes measured an arm, across resumes."""

from __future__ import annotations

from evidence_kit.collect.process_starts import ProcessHistory, RunStarts


def _runs(*starts: tuple[float, ...], resumed_at: tuple[int, ...] = ()) -> list[RunStarts]:
    return [RunStarts(f"r{n}", s, n in resumed_at) for n, s in enumerate(starts, 1)]


def test_two_resumes_on_three_plan_started_engines_name_every_process_and_where_each_took_over() -> None:
    history = ProcessHistory(
        earlier=_runs((100.5,), (100.5,), (200.25,), resumed_at=(3,)), opening=300.0, current=_runs((300.0,), (300.0,)), restarts_on_resume=True
    )
    assert history.starts == [100.5, 200.25, 300.0] and not history.stable and not history.unexplained
    assert history.describe() == (
        "engine process changed during the arm: start times 100.5 (runs 1-2), 200.25 (run 3), 300.0 (runs 4-5) "
        "(resumed at run 3 and at run 4); changed at the resume at run 3 (the resumed collector started a new engine); "
        "changed at the resume at run 4 (the resumed collector started a new engine)"
    )


def test_a_restart_within_one_collector_session_is_unexplained_even_in_a_resumed_arm() -> None:
    history = ProcessHistory(earlier=_runs((1.0,), (1.0, 2.0)), opening=3.0, current=_runs((3.0,)), restarts_on_resume=True)
    assert history.unexplained
    assert "changed within one collector session, at run 2 (the engine restarted on its own)" in history.describe()


def test_an_endpoint_the_plan_does_not_start_that_changed_across_a_resume_restarted_on_its_own() -> None:
    history = ProcessHistory(earlier=_runs((1.0,)), opening=2.0, current=_runs((2.0,)))
    assert history.unexplained and "changed at the resume at run 2 (the engine restarted on its own)" in history.describe()


def test_runs_committed_without_start_times_are_named_not_claimed_stable() -> None:
    history = ProcessHistory(earlier=_runs((), ()), opening=5.0, current=_runs((5.0,)), restarts_on_resume=True)
    assert history.stable and history.describe() == (
        "the engine's reported process start time never changed, across the resume at run 3 "
        "(no start time recorded by the collector that began at run 1)"
    )


def test_a_collector_resumed_after_the_last_run_on_a_new_engine_says_so() -> None:
    history = ProcessHistory(earlier=_runs((1.0,), (1.0,)), opening=2.0, restarts_on_resume=True)
    assert history.describe() == (
        "engine process changed during the arm: start times 1.0 (runs 1-2), 2.0 (no run) (resumed after "
        "run 2); changed at the resume after run 2 (the resumed collector started a new engine)"
    )
