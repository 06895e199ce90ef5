"""An open-loop run's schedule is a pure function of the plan (seed, input, rate, arrival): the same in every
arm and repetition. A saturated client's journal, hand-edited so each request's ``scheduled_s`` is its late
send offset and its ``send_wait_s`` 0, passes the reader (send - due - lag is the run's t_start_s) and the
rate check (achieved and scheduled rates come from the same forged times). Judged against the schedule the
plan gives, it falls short of its rate and lagged."""

from __future__ import annotations

import pytest

from evidence_kit.analyze.client_health import run_client
from evidence_kit.collect.arrivals import schedule
from evidence_kit.model import Request, Run
from evidence_kit.model.trial import ClientBounds

HEALTH = {"wall_s": 3.0, "processes": [{"cpu_s": 0.1, "loop_cpu_s": 0.1, "loop_lag_interval_s": 0.01,
                                        "loop_lag_samples": 300, "loop_lag_p50_s": 0.001, "loop_lag_max_s": 0.004}]}
SEED, INPUT, RATE, N = 11, 256, 4.0, 8
START = 10.0


def _run(sends: list[float], due: list[float]) -> tuple[Run, list[Request]]:
    requests = [Request(type="request", run="r1-256-rate4.0", repetition=1, input_nominal=INPUT, rate=RATE, index=i,
                        warmup=False, ok=True, e2e_s=0.1, ttft_s=0.05, t_send_s=round(START + s, 6),
                        scheduled_s=round(d, 6), send_wait_s=round(s - d, 6))
                for i, (s, d) in enumerate(zip(sends, due))]
    run = Run.model_validate({"type": "run", "run": "r1-256-rate4.0", "repetition": 1, "input_nominal": INPUT,
                              "rate": RATE, "t_start_s": START, "requests": N, "ok": N, "client": HEALTH})
    return run, requests


@pytest.mark.parametrize("arrival", ["poisson", "constant"])
def test_a_forged_schedule_does_not_hide_a_saturated_client(arrival: str) -> None:
    due = schedule(N, RATE, arrival, seed=SEED, input_nominal=INPUT)
    late = [d * 1.25 for d in due]  # the client fell 20 % behind its rate
    honest = run_client(*_run(late, due), ClientBounds(), due=due)
    assert honest is not None and "arrival-rate" in [e.bound for e in honest.exceeded]
    forged = run_client(*_run(late, late), ClientBounds(), due=due)  # scheduled_s := send offset, lag 0
    assert forged is not None and forged.saturated
    assert "arrival-rate" in [e.bound for e in forged.exceeded]
    assert forged.send_wait_max_s == pytest.approx(max(s - d for s, d in zip(late, due)), abs=2e-6)


def test_an_honest_run_is_judged_as_before() -> None:
    due = schedule(N, RATE, "poisson", seed=SEED, input_nominal=INPUT)
    kept = run_client(*_run([d + 0.002 for d in due], due), ClientBounds(), due=due)
    assert kept is not None and not kept.saturated and kept.unjudged == []
    assert kept.send_wait_max_s == pytest.approx(0.002)
