"""The client-health check of an open-loop run: judged by its send lag and by its achieved rate against its own
schedule's, and a journal whose lags are not measured from its schedule refused at the request's line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.analyze.client_health import run_client
from evidence_kit.errors import BadInput
from evidence_kit.model import Request, Run
from evidence_kit.model.trial import ClientBounds
from evidence_kit.read import JournalReader

HEALTH = {
    "wall_s": 1.2,
    "processes": [
        {"cpu_s": 0.1, "loop_cpu_s": 0.1, "loop_lag_interval_s": 0.01, "loop_lag_samples": 100, "loop_lag_p50_s": 0.001, "loop_lag_max_s": 0.004}
    ],
}


def _run(sends: list[float], due: list[float], start: float = 10.0) -> tuple[Run, list[Request]]:
    requests = [
        Request(
            type="request",
            run="r1-256-rate4.0",
            repetition=1,
            input_nominal=256,
            rate=4.0,
            index=i,
            warmup=False,
            ok=True,
            e2e_s=0.1,
            ttft_s=0.05,
            t_send_s=start + s,
            scheduled_s=d,
            send_wait_s=round(s - d, 6),
        )
        for i, (s, d) in enumerate(zip(sends, due))
    ]
    run = Run.model_validate(
        {
            "type": "run",
            "run": "r1-256-rate4.0",
            "repetition": 1,
            "input_nominal": 256,
            "rate": 4.0,
            "t_start_s": start,
            "requests": len(sends),
            "ok": len(sends),
            "client": HEALTH,
        }
    )
    return run, requests


def test_a_client_that_kept_its_schedule_is_within_and_one_that_fell_behind_is_saturated() -> None:
    due = [0.0, 0.25, 0.5, 0.75, 1.0]
    kept = run_client(*_run([d + 0.002 for d in due], due), ClientBounds())
    assert kept is not None and not kept.saturated and kept.exceeded == []
    assert kept.achieved_rate_per_s == pytest.approx(4.0) and kept.scheduled_rate_per_s == pytest.approx(4.0)
    # Each request 10 % later than the one before (lags 0, 25, 50, 75, 100 ms): every lag under the 1 s bound,
    # yet the client started requests 9 % slower than its schedule asked.
    late = run_client(*_run([d * 1.1 for d in due], due), ClientBounds())
    assert late is not None and late.saturated
    assert [e.bound for e in late.exceeded] == ["arrival-rate"]
    assert late.exceeded[0].value == pytest.approx(1 - 1 / 1.1) and late.exceeded[0].limit == 0.05
    # A declared bound looser than the shortfall lets it pass; the send-wait bound still judges the lag.
    loose = run_client(*_run([d * 1.1 for d in due], due), ClientBounds(max_rate_shortfall=0.2, max_send_wait_s=0.05))
    assert loose is not None and [e.bound for e in loose.exceeded] == ["send-wait"]


def test_an_open_loop_run_without_its_schedule_is_unjudged_on_its_rate() -> None:
    run, requests = _run([0.0, 0.25, 0.5], [0.0, 0.25, 0.5])
    for r in requests:
        r.scheduled_s = None
    health = run_client(run, requests, ClientBounds())
    assert health is not None and health.unjudged == ["arrival-rate"] and not health.saturated


def _journal(tmp_path: Path, lag_shift: float) -> Path:
    run, requests = _run([0.001, 0.252, 0.503], [0.0, 0.25, 0.5])
    requests[1].send_wait_s = round(requests[1].send_wait_s + lag_shift, 6)  # type: ignore[operator]
    header = {
        "type": "header",
        "schema": "evidence-kit/journal/v1",
        "trial_id": "t",
        "arm": "a",
        "phase": "before",
        "seq": 1,
        "started_at": "2026-12-01T00:00:00Z",
    }
    lines = [header, *(r.model_dump(mode="json", exclude_none=True) for r in requests), run.model_dump(mode="json", exclude_none=True)]
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_a_send_lag_not_measured_from_the_schedule_is_refused_at_its_line(tmp_path: Path) -> None:
    list(JournalReader(_journal(tmp_path, 0.0), require_footer=False))
    with pytest.raises(BadInput) as caught:
        list(JournalReader(_journal(tmp_path, -0.001), require_footer=False))  # a lag 1 ms smaller than it was
    assert caught.value.line == 3 and "its send lag is not its send time less its due time" in caught.value.message
