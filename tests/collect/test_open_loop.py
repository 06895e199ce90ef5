"""Open-loop load: seeded arrival schedules, a scheduler that never waits on completions, and the plan's
rate, arrival, max_in_flight and [slo] settings refused with their file and line when wrong."""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path

import pytest

from evidence_kit.collect import load_plan
from evidence_kit.collect.arrivals import Lanes, schedule, send_open

from .conftest import write_plan
from .test_plan import _error


def test_the_same_group_gets_the_same_schedule_bit_for_bit_and_another_group_another() -> None:
    one = schedule(200, 4.0, "poisson", seed=7, input_nominal=256)
    assert one == schedule(200, 4.0, "poisson", seed=7, input_nominal=256)
    assert [x.hex() for x in one] == [x.hex() for x in schedule(200, 4.0, "poisson", seed=7, input_nominal=256)]
    assert one[0] == 0.0 and all(b > a for a, b in zip(one, one[1:]))
    for other in (
        schedule(200, 4.0, "poisson", seed=8, input_nominal=256),
        schedule(200, 4.5, "poisson", seed=7, input_nominal=256),
        schedule(200, 4.0, "poisson", seed=7, input_nominal=512),
    ):
        assert other != one
    # A run of fewer requests is the longer schedule's beginning: the draw does not depend on the count.
    assert schedule(10, 4.0, "poisson", seed=7, input_nominal=256) == one[:10]


def test_poisson_gaps_are_exponential_at_the_rate_and_constant_gaps_are_equal() -> None:
    rate = 8.0
    offsets = schedule(20_001, rate, "poisson", seed=3, input_nominal=1024)
    gaps = [b - a for a, b in zip(offsets, offsets[1:])]
    mean = statistics.fmean(gaps)
    # 20,000 exponential gaps: the mean within 3 % of 1/rate (its standard error is 0.7 %), the coefficient
    # of variation near 1 (an exponential's), where equal gaps would give 0.
    assert abs(mean * rate - 1) < 0.03
    assert abs(statistics.pstdev(gaps) / mean - 1) < 0.05
    constant = schedule(9, rate, "constant", seed=3, input_nominal=1024)
    assert constant == [i / rate for i in range(9)]
    with pytest.raises(ValueError, match="unknown arrival"):
        schedule(3, rate, "bursty", seed=0, input_nominal=1)


def test_each_request_is_sent_when_due_whatever_is_still_in_flight() -> None:
    # Every send waits until all of them have started: a scheduler that waited for a completion before the
    # next send (a closed loop) would never finish.
    async def main() -> tuple[list[tuple[int, int, float, float]], Lanes]:
        started: list[tuple[int, int, float, float]] = []
        everyone = asyncio.Event()
        loop = asyncio.get_running_loop()

        async def send(index: int, lane: int, due: float) -> None:
            started.append((index, lane, due, loop.time()))
            if len(started) == 5:
                everyone.set()
            await everyone.wait()

        offsets = [0.0, 0.01, 0.02, 0.03, 0.04]
        lanes = await asyncio.wait_for(send_open(offsets, loop.time(), send, clock=loop.time), 10)
        return started, lanes

    started, lanes = asyncio.run(main())
    assert [s[0] for s in started] == [0, 1, 2, 3, 4]
    assert all(at >= due for _, _, due, at in started)  # never before its due time
    assert sorted(s[1] for s in started) == [0, 1, 2, 3, 4] and lanes.used == 5  # five in flight: five lanes


def test_max_in_flight_holds_a_due_request_until_a_slot_frees_and_lanes_are_reused() -> None:
    async def main() -> tuple[list[int], int, Lanes]:
        in_flight, peak, lanes_seen = 0, 0, []
        loop = asyncio.get_running_loop()

        async def send(index: int, lane: int, due: float) -> None:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            lanes_seen.append(lane)
            await asyncio.sleep(0.01)
            in_flight -= 1

        lanes = await send_open([0.0] * 6, loop.time(), send, clock=loop.time, max_in_flight=2)
        return lanes_seen, peak, lanes

    lanes_seen, peak, lanes = asyncio.run(main())
    assert peak == 2 and set(lanes_seen) == {0, 1} and lanes.used == 2


def _open_plan(tmp_path: Path, extra: str = "", **workload: object) -> str:
    """A valid open-loop plan's text (no concurrency line), with ``extra`` appended."""
    text = write_plan(tmp_path / "p.toml", workload={"rate": [4.0], **workload}).read_text()
    lines = [line for line in text.splitlines() if not line.startswith("concurrency =")]
    return "\n".join(lines) + "\n" + extra


def _line(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_an_open_loop_plan_loads_into_trial_json_with_its_schedule_settings(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text(_open_plan(tmp_path, "[slo]\nttft_ms = 500\ne2e_ms = 4000\n", arrival="constant", max_in_flight=8))
    trial = load_plan(path).trial()
    wl = trial.workload
    assert wl.concurrency is None and wl.rate == [4.0] and wl.arrival == "constant" and wl.max_in_flight == 8
    assert wl.groups() == [(256, 4.0)] and wl.load_label(4.0) == "R4.0"
    assert trial.slo is not None and trial.slo.ttft_ms == 500 and trial.slo.tpot_ms is None


@pytest.mark.parametrize(
    "case",
    ["both", "neither", "negative rate", "unknown arrival", "arrival closed loop", "unknown slo", "empty slo", "goodput without slo", "one request"],
)
def test_a_bad_open_loop_plan_is_refused_at_its_line(tmp_path: Path, case: str) -> None:
    if case == "both":
        text = write_plan(tmp_path / "p.toml", workload={"rate": [2.0]}).read_text()
        at, said = "[workload]", "sets exactly one of concurrency"
    elif case == "neither":
        text = "\n".join(line for line in _open_plan(tmp_path).splitlines() if not line.startswith("rate ="))
        at, said = "[workload]", "it sets neither"
    elif case == "negative rate":
        text = _open_plan(tmp_path).replace("rate = [4.0]", "rate = [4.0, -2.0]")
        at, said = "rate =", "greater than 0"
    elif case == "unknown arrival":
        text = _open_plan(tmp_path, arrival="bursty")
        at, said = "arrival =", "'poisson' or 'constant'"
    elif case == "arrival closed loop":
        text = write_plan(tmp_path / "p.toml", workload={"arrival": "constant"}).read_text()
        at, said = "[workload]", "arrival and max_in_flight are for an open-loop workload"
    elif case == "unknown slo":
        text = _open_plan(tmp_path, "[slo]\nttft_ms = 500\nitl_ms = 20\n")
        at, said = "itl_ms", "itl_ms"
    elif case == "empty slo":
        text = _open_plan(tmp_path, "[slo]\n")
        at, said = "[slo]", "at least one of ttft_ms, tpot_ms and e2e_ms"
    elif case == "goodput without slo":
        text = _open_plan(tmp_path).replace("[decision_rule]\n", '[decision_rule]\nmetric = "goodput"\n')
        at, said = "[decision_rule]", "declares no [slo] table"
    else:
        text = _open_plan(tmp_path, requests_per_run=1)
        at, said = "[workload]", "requests_per_run of at least 2"
    err = _error(tmp_path, text)
    assert said in err.message, err.message
    assert err.line == _line(text, at), (err.line, err.message)


def test_the_cli_refuses_a_plan_with_rate_and_concurrency_in_one_line_exit_2_writing_nothing(tmp_path: Path, run_cli) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"rate": [2.0]})
    out = tmp_path / "raw"
    result = run_cli("collect", plan, "--out", out, "-q")
    line = plan.read_text().splitlines().index("[workload]") + 1
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {plan}:{line}: "), result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err and not out.exists()


def test_a_non_utf8_plan_with_a_rate_is_one_located_line(tmp_path: Path, run_cli) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_bytes(_open_plan(tmp_path).encode().replace(b"rate = [4.0]", b"rate = [4.0] # \xff\xfe"))
    result = run_cli("collect", plan, "--out", tmp_path / "raw", "-q")
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {plan}"), result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
