"""Forged multi-turn journals whose turns contradict the conversations' order. Each forgery edits
a real journal (collected from the simulator over HTTP) and fixes its counts, as a forger would; before this
session verify passed every one of them (it only checked that no (conversation, turn) repeats)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.multiturn_trial import CONVERSATIONS, TURNS, Record, forge, journals


def _timed(records: list[Record]) -> list[Record]:
    return [r for r in records if r["type"] == "request" and not r["warmup"]]


def _first_run(records: list[Record]) -> list[Record]:
    timed = _timed(records)
    return [r for r in timed if r["run"] == timed[0]["run"]]


def _turn(records: list[Record], conversation: int, turn: int) -> Record:
    return next(r for r in _first_run(records) if r["conversation"] == conversation and r["turn"] == turn)


def test_the_real_journals_verify_and_hold_an_ended_conversation(multiturn_trial: Path, run_cli) -> None:
    result = run_cli("verify", multiturn_trial)
    assert "PASS contract" in result.out and "PASS figures" in result.out, result.out
    errors = [json.loads(line).get("error") or "" for path in journals(multiturn_trial) for line in path.read_text().splitlines()]
    assert any(e.startswith("not sent: turn ") for e in errors)  # the fault ended a conversation early
    # The candidate's pool lost long late turns with its failures (its median leans to the short first turns:
    # survivorship), but a trial whose planned turns did not all complete is blocked from promotion (every not-sent
    # turn counts as planned and not completed: analyze/trial.py's blocked_by).
    from evidence_kit.analyze import analyze
    from evidence_kit.read import load_trial

    trial = analyze(load_trial(multiturn_trial)).trials[0]
    failed = sum(not r.ok for arm in load_trial(multiturn_trial).arms for r in arm.timed)
    assert failed and trial.timed_failed == failed and trial.timed_ok == trial.timed_planned - failed


def _fail_first_turn(records: list[Record]) -> list[Record]:
    r = _turn(records, 1, 1)
    r.update(
        ok=False,
        error="http 500: injected",
        http_status=500,
        e2e_s=None,
        ttft_s=None,
        ttft_content_s=None,
        completion_tokens=None,
        finish_reason=None,
    )
    return records


def _unsend(r: Record, failed: int) -> None:
    for k in (
        "t_send_s",
        "e2e_s",
        "ttft_s",
        "ttft_content_s",
        "last_token_s",
        "headers_s",
        "send_wait_s",
        "http_status",
        "prompt_tokens",
        "completion_tokens",
        "reasoning_tokens",
        "finish_reason",
        "token_events",
        "itl_us",
        "cached_tokens",
    ):
        r.pop(k, None)
    r.update(ok=False, error=f"not sent: turn {failed} of its conversation failed")


def _ok_after_failure(records: list[Record]) -> list[Record]:
    return _fail_first_turn(records)  # turns 2 and 3 stay ok, with their durations


def _unsent_with_durations(records: list[Record]) -> list[Record]:
    _fail_first_turn(records)
    for turn in (2, 3):
        _turn(records, 1, turn).update(ok=False, error="not sent: turn 1 of its conversation failed")
    return records


def _unsent_after_ok(records: list[Record]) -> list[Record]:
    for turn in (2, 3):
        _unsend(_turn(records, 1, turn), 1)
    return records


def _sent_before_previous_ended(records: list[Record]) -> list[Record]:
    one, two = _turn(records, 0, 1), _turn(records, 0, 2)
    two["t_send_s"] = round(one["t_send_s"] + one["e2e_s"] / 2, 6)
    return records


def _turn_missing(records: list[Record]) -> list[Record]:
    gone = _turn(records, 1, 2)
    return [r for r in records if r is not gone]


def _turn_moved_to_other_conversation(records: list[Record]) -> list[Record]:
    _turn(records, 1, 3)["conversation"] = 0  # conversation 0 gets a second turn 3... under another index
    _turn(records, 0, 3)["turn"] = 2
    _turn(records, 0, 2)["turn"] = 1
    gone = _turn(records, 0, 1)
    return [r for r in records if r is not gone]


def _indices_swapped(records: list[Record]) -> list[Record]:
    a, b = _turn(records, 0, 2), _turn(records, 1, 2)
    a["index"], b["index"] = b["index"], a["index"]
    return records


def _key_of_another_turn(records: list[Record]) -> list[Record]:
    r = _turn(records, 0, 3)
    r["key"] = r["key"].replace("/turn3", "/turn2")
    return records


FORGERIES = [
    (_ok_after_failure, "is journalled as sent, yet turn 1 ended the conversation"),
    (_unsent_with_durations, "was not sent, yet has a send time, a duration, a status or tokens"),
    (_unsent_after_ok, "is journalled as not sent, yet no earlier turn failed"),
    (_sent_before_previous_ended, "before turn 1's answer ended at"),
    (_turn_missing, f"holds turns [1, 3], not each of 1..{TURNS} once"),
    (_turn_moved_to_other_conversation, "conversation 1 holds turns [1, 2], not each of 1..3 once"),
    (_indices_swapped, "turn 2 has index"),
    (_key_of_another_turn, "its prompt's key is"),
]


@pytest.mark.parametrize(("edit", "said"), FORGERIES, ids=[f.__name__.strip("_") for f, _ in FORGERIES])
def test_a_forged_turn_order_fails_verify(multiturn_trial: Path, tmp_path: Path, run_cli, edit, said: str) -> None:
    assert CONVERSATIONS == 2
    forged = forge(multiturn_trial, tmp_path / "forged", edit, journal=0)  # the before arm: no fault, every turn ok
    result = run_cli("verify", forged)
    assert result.code == 1 and "FAIL contract" in result.out and said in result.out, result.out
    assert str(journals(forged)[0]) in result.out
