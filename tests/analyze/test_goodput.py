"""Goodput under declared SLOs as the decision metric: higher is better, failures are never good, and the
verdict follows the share of good requests, not the latency medians."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.analyze.goodput import is_good, tpot_s
from evidence_kit.model import PHASES, Request, Trial
from evidence_kit.model.evidence import TrialEvidence
from tests.synthetic import synthetic_arms

SLO = {"ttft_ms": 200.0, "tpot_ms": 20.0}


def _trial(runs: Mapping[str, Sequence[Sequence[tuple[float, float]]]], *, metric: str = "goodput", confidence: str = "point") -> TrialEvidence:
    """An A/B/A open-loop trial of one group at 2 requests per second; each request given as (ttft_s, e2e_s)
    with 11 output tokens (so TPOT is (e2e - ttft) / 10); a negative ttft is a failed request."""
    repetitions = len(runs["before"])
    trial, arms = synthetic_arms(
        "goodput",
        {
            "input_nominal": [1024],
            "rate": [2.0],
            "arrival": "poisson",
            "repetitions": repetitions,
            "requests_per_run": max(len(r) for p in PHASES for r in runs[p]),
            "max_tokens": 64,
            "temperature": 0,
        },
        {"metric": metric, "min_improvement": 0.1, "confidence": confidence},
        slo=SLO,
    )
    for arm in arms:
        ref = arm.ref
        for repetition, values in enumerate(runs[ref.phase], start=1):
            for index, (ttft, e2e) in enumerate(values):
                ok = ttft >= 0
                arm.requests.append(
                    Request(
                        type="request",
                        run=f"r{repetition}-1024-rate2.0",
                        repetition=repetition,
                        input_nominal=1024,
                        rate=2.0,
                        index=index,
                        warmup=False,
                        ok=ok,
                        error=None if ok else "http 503",
                        prompt_tokens=1024 if ok else None,
                        completion_tokens=11 if ok else None,
                        e2e_s=e2e if ok else None,
                        ttft_s=ttft if ok else None,
                        ttft_content_s=ttft if ok else None,
                        t_send_s=index * 0.5 + repetition * 100,
                        scheduled_s=index * 0.5,
                    )
                )
    return TrialEvidence(trial=trial, arms=arms, source="synthetic:goodput")


GOOD = (0.1, 0.2)  # ttft 100 ms, tpot 10 ms
SLOW_START = (0.3, 0.35)  # ttft 300 ms: misses the TTFT SLO, yet a short end-to-end time
SLOW_TOKENS = (0.05, 0.6)  # tpot 55 ms: misses the TPOT SLO
FAILED = (-1.0, 0.0)


def _runs(good: int, bad: Sequence[tuple[float, float]], repetitions: int = 3) -> list[list[tuple[float, float]]]:
    return [[GOOD] * good + list(bad) for _ in range(repetitions)]


def test_a_request_is_good_only_if_it_succeeded_and_met_every_declared_slo() -> None:
    evidence = _trial({p: _runs(1, [SLOW_START, SLOW_TOKENS, FAILED]) for p in PHASES})
    slo = evidence.trial.slo
    assert slo is not None
    r = evidence.arms[0].requests
    assert [is_good(x, slo) for x in r[:4]] == [True, False, False, False]
    assert tpot_s(r[0]) == pytest.approx(0.01) and tpot_s(r[2]) == pytest.approx(0.055)


def test_the_candidate_with_more_good_requests_wins_on_goodput_though_its_median_latency_is_worse() -> None:
    # Controls: 6 of 10 good (7, 5 and 6 in their runs: runs of one share would estimate no noise), the others
    # slow to start but quick to end. Candidate: 9 of 10 good (10, 9, 8), goodput 50 % higher; its misses slow
    # streams, so its median end-to-end time is no better than the controls'.
    controls = [[GOOD] * 7 + [SLOW_START] * 3, [GOOD] * 5 + [SLOW_START] * 5, [GOOD] * 6 + [SLOW_START] * 4]
    candidate = [[GOOD] * 10, [GOOD] * 9 + [SLOW_START], [GOOD] * 8 + [SLOW_TOKENS] * 2]
    trial = analyze(_trial({"before": controls, "candidate": candidate, "restored": controls})).trials[0]
    g = trial.groups[0]
    assert g.label.endswith("/R2.0") and g.rate == 2.0
    assert g.load is not None and g.load["candidate"].share == pytest.approx(0.9)
    assert g.load["before"].share == pytest.approx(0.6) and g.load["before"].good == 18
    assert [c.improvement_pct for c in g.comparisons["goodput"]] == [pytest.approx(50.0)] * 2
    assert g.verdict.verdict == "win" and trial.outcome == "promote", trial.blocked_by
    assert all(i.statistic == "share" and i.low is not None and i.low > 1 for i in g.intervals)
    # The same trial judged by median e2e: no better there, so no win.
    by_e2e = analyze(_trial({"before": controls, "candidate": candidate, "restored": controls}, metric="e2e_s")).trials[0].groups[0]
    assert not by_e2e.verdict.win and by_e2e.comparisons["e2e_s"][0].change_pct >= 0


def test_a_candidate_with_fewer_good_requests_is_a_goodput_regression_and_failures_count_against_it() -> None:
    controls = [[GOOD] * 10, [GOOD] * 9 + [SLOW_START], [GOOD] * 8 + [SLOW_START] * 2]
    # Its successes are all good: only the failures (4, 5 and 6 of 10) are not.
    candidate = [[GOOD] * 6 + [FAILED] * 4, [GOOD] * 5 + [FAILED] * 5, [GOOD] * 4 + [FAILED] * 6]
    trial = analyze(_trial({"before": controls, "candidate": candidate, "restored": controls}, confidence="significant")).trials[0]
    g = trial.groups[0]
    assert g.load is not None and g.load["candidate"].share == pytest.approx(0.5)
    assert g.verdict.verdict == "regression" and not g.verdict.win and trial.outcome == "no-promotion"
    assert all(i.high is not None and i.high < 1 for i in g.intervals)


def test_equal_goodput_is_no_win_and_the_rule_needs_its_share_statistic() -> None:
    same = _runs(8, [SLOW_START, SLOW_TOKENS])
    trial = analyze(_trial({p: same for p in PHASES})).trials[0]
    assert trial.groups[0].verdict.verdict in ("no-win", "inconclusive") and not trial.groups[0].verdict.win
    with pytest.raises(ValueError, match="does not fit metric 'goodput'"):
        Trial.model_validate(
            {
                **_trial({p: same for p in PHASES}).trial.model_dump(by_alias=True),
                "decision_rule": {"metric": "goodput", "statistic": "median", "min_improvement": 0.1},
            }
        )
    with pytest.raises(ValueError, match="no slo is declared"):
        Trial.model_validate({**_trial({p: same for p in PHASES}).trial.model_dump(by_alias=True), "slo": None})
