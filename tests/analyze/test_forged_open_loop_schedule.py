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

HEALTH = {
    "wall_s": 3.0,
    "processes": [
        {"cpu_s": 0.1, "loop_cpu_s": 0.1, "loop_lag_interval_s": 0.01, "loop_lag_samples": 300, "loop_lag_p50_s": 0.001, "loop_lag_max_s": 0.004}
    ],
}
SEED, INPUT, RATE, N = 11, 256, 4.0, 8
START = 10.0


def _run(sends: list[float], due: list[float]) -> tuple[Run, list[Request]]:
    requests = [
        Request(
            type="request",
            run="r1-256-rate4.0",
            repetition=1,
            input_nominal=INPUT,
            rate=RATE,
            index=i,
            warmup=False,
            ok=True,
            e2e_s=0.1,
            ttft_s=0.05,
            t_send_s=round(START + s, 6),
            scheduled_s=round(d, 6),
            send_wait_s=round(s - d, 6),
        )
        for i, (s, d) in enumerate(zip(sends, due))
    ]
    run = Run.model_validate(
        {
            "type": "run",
            "run": "r1-256-rate4.0",
            "repetition": 1,
            "input_nominal": INPUT,
            "rate": RATE,
            "t_start_s": START,
            "requests": N,
            "ok": N,
            "client": HEALTH,
        }
    )
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


def _trace_trial(candidate_due: list[float], candidate_sends: list[float], due: list[float]):
    from evidence_kit.model.evidence import TrialEvidence
    from tests.synthetic import synthetic_arms

    trial, arms = synthetic_arms(
        "trace",
        {"input_nominal": [INPUT], "rate": [RATE], "arrival": "trace", "repetitions": 1, "requests_per_run": N, "max_tokens": 64, "temperature": 0},
        {"metric": "e2e_s", "min_improvement": 0.1},
    )
    for arm in arms:
        ref = arm.ref
        sends, stated = (candidate_sends, candidate_due) if ref.phase == "candidate" else (due, due)
        run, requests = _run(sends, stated)
        arm.requests, arm.runs = requests, [run]
    return TrialEvidence(trial=trial, arms=arms, source="synthetic:trace")


def test_a_trace_runs_schedule_is_the_one_every_other_run_of_its_group_states() -> None:
    """A trace is private: its schedule cannot be redrawn. It offers the same arrivals to every arm, so a
    candidate whose journal states its late sends as its due times is judged by the controls' due times."""
    from evidence_kit.analyze import analyze

    due = schedule(N, RATE, "poisson", seed=SEED, input_nominal=INPUT)
    late = [d * 1.25 for d in due]
    honest = analyze(_trace_trial(due, [d + 0.001 for d in due], due)).trials[0]
    assert all(r.client is not None and not r.client.saturated for r in honest.runs)
    forged = analyze(_trace_trial(late, late, due)).trials[0]
    candidate = next(r for r in forged.runs if r.phase == "candidate")
    assert candidate.client is not None and candidate.client.saturated
    assert "arrival-rate" in [e.bound for e in candidate.client.exceeded]
