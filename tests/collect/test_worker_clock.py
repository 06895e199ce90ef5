"""Only durations cross from a worker: its anchor placed on the arm's clock, exactly on this machine, within a bound elsewhere."""

from __future__ import annotations

import pytest

from evidence_kit.collect.workers import Handle, WorkerFailed


class _Worker(Handle):
    def __init__(self, same_machine: bool):
        self.number, self.same_machine = 0, same_machine


def test_a_worker_on_this_machine_is_placed_exactly_and_one_reading_another_clock_is_refused() -> None:
    worker = _Worker(same_machine=True)
    worker.place(100.0, 100.25, 100.5, t0=90.0)
    assert (worker.placement, worker.bound) == (10.25, 0.0)
    assert worker.arm_time(1.5) == 11.75
    with pytest.raises(WorkerFailed, match="monotonic clock read 5000.0 outside"):
        worker.place(100.0, 5000.0, 100.5, t0=90.0)


def test_a_worker_on_another_machine_is_placed_mid_round_trip_and_its_clock_never_read_as_ours() -> None:
    worker = _Worker(same_machine=False)
    # Its clock has another origin (a machine up for days): the reading is used for nothing but the anchor.
    worker.place(100.0, 987_654.321, 100.004, t0=90.0)
    assert worker.placement == pytest.approx(10.002) and worker.bound == pytest.approx(0.002)
    assert worker.arm_time(0.25) == pytest.approx(10.252)  # its durations, on our clock


@pytest.mark.parametrize("value", [-0.001, "1.0", True, None])
def test_a_send_time_that_is_no_duration_is_a_malformed_reply(value: object) -> None:
    with pytest.raises(WorkerFailed, match="malformed reply"):
        _Worker(same_machine=True).arm_time(value)
