"""Multi-turn conversations: the plan's checks, the conversations' keys and session ids, histories that grow
exactly as the simulator received them over real HTTP (from this process and from worker processes), a failed
turn's conversation ending there, and a multi-turn trial that reconciles, publishes and verifies."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from evidence_kit.collect import load_plan
from evidence_kit.collect.client import stream_chat
from evidence_kit.collect.conversations import Conversation, run_conversations, send_conversations, session_id
from evidence_kit.collect.prompts import Calibration, PromptBook
from evidence_kit.collect.runs import timing_fields
from evidence_kit.collect.workers import worker_pool
from evidence_kit.engine_sim import configure_profile, start_simulator
from evidence_kit.errors import BadInput

from .conftest import write_plan

CALIBRATION = Calibration(method="tokenize", overhead_tokens=20, tokens_per_word=1.0)
MODEL = "sim-org/sim-model-7b-simulated"
HEADER = "X-Session-Id"


def _workload(tmp_path: Path, **fields: Any):
    wl = {"turns": 3, "session_header": HEADER, "requests_per_run": 3, "concurrency": [2], **fields}
    return load_plan(write_plan(tmp_path / "plan.toml", workload=wl)).workload


@pytest.mark.parametrize(
    ("workload", "key", "said"),
    [
        ({"turns": 0}, "turns", "greater than or equal to 1"),
        ({"turns": -2}, "turns", "greater than or equal to 1"),
        ({"turns": 2.5}, "turns", "valid integer"),
        ({"turns": 2.0}, "turns", "valid integer"),  # strict: a float is no turn count, whole or not
        ({"turns": "3"}, "turns", "valid integer"),
        ({"turns": True}, "turns", "valid integer"),
        ({"turns": 2, "session_header": "X Session"}, "session_header", "is not an HTTP header name"),
        ({"turns": 2, "session_header": "X-Sessi\u00f6n"}, "session_header", "is not an HTTP header name"),
        ({"turns": 2, "session_header": "Content-Type"}, "session_header", "the collector or HTTP itself sets"),
        ({"session_header": HEADER}, "session_header", "without turns above 1"),
        ({"turns": 3, "prefix_tokens": 128, "prefixes": 2}, "turns", "with prefix_tokens is not supported"),
    ],
)
def test_bad_multiturn_plans_exit_2_with_file_and_line(tmp_path: Path, run_cli, workload: dict, key: str, said: str) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload=workload)
    lines = plan.read_text().splitlines()
    at = next(i for i, line in enumerate(lines, 1) if line.startswith(key + " ="))
    with pytest.raises(BadInput) as caught:
        load_plan(plan)
    assert caught.value.line == at and said in caught.value.message, caught.value
    result = run_cli("collect", plan, "--out", tmp_path / "raw")
    assert result.code == 2 and f"{plan}:{at}:" in result.err and result.err.strip().count("\n") == 0
    assert "Traceback" not in result.err and not (tmp_path / "raw").exists()


def test_turns_with_an_open_loop_is_refused_at_its_line(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"turns": 2})
    text = plan.read_text().replace("concurrency = [1, 3]", "rate = [4.0]")
    plan.write_text(text)
    with pytest.raises(BadInput) as caught:
        load_plan(plan)
    at = text.splitlines().index("turns = 2") + 1
    assert str(caught.value).startswith(f"{plan}:{at}: ") and "replays arrivals, not conversations" in str(caught.value)


def test_a_multiturn_plan_reaches_trial_json_and_a_single_turn_one_is_unchanged(tmp_path: Path) -> None:
    wl = load_plan(write_plan(tmp_path / "p.toml", workload={"turns": 3, "session_header": HEADER})).trial().workload
    assert (wl.turns, wl.session_header, wl.timed_per_run) == (3, HEADER, 9)
    assert wl.planned_per_arm == 2 * 2 * 3 * 3  # groups x repetitions x conversations x turns
    for turns in ({}, {"turns": 1}):  # one turn, said or not, is the single-turn trial.json it always was
        plain = load_plan(write_plan(tmp_path / "q.toml", workload=turns)).trial().model_dump(exclude_none=True)
        assert not {"turns", "session_header"} & set(plain["workload"])
    # A trial.json saying one turn is none the collector writes (a hand-written one would read "conversations of 1
    # turns" on its page): refused.
    from evidence_kit.model import Trial

    document = load_plan(write_plan(tmp_path / "r.toml", workload={"turns": 2})).trial().model_dump(by_alias=True)
    document["workload"]["turns"] = 1
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        Trial.model_validate(document)


def test_conversations_and_session_ids_are_the_same_in_every_arm_and_move_with_the_seed(tmp_path: Path) -> None:
    wl = _workload(tmp_path)
    arms = [
        run_conversations(wl, MODEL, PromptBook("Summarise.", wl.seed, CALIBRATION), "r1-256-c2", 256) for _ in range(2)
    ]  # two arms: two prompt books, as two collector processes hold

    def shape(conversations: list[Conversation]) -> list[Any]:
        return [(c.keys, c.first, c.headers, [c.user(k) for k in (2, 3)], [c.seed(k) for k in (2, 3)]) for c in conversations]

    assert shape(arms[0]) == shape(arms[1])
    first = arms[0]
    assert [c.keys for c in first] == [[f"r1-256-c2/{c}", f"r1-256-c2/{c}/turn2", f"r1-256-c2/{c}/turn3"] for c in range(3)]
    ids = [c.headers[HEADER] for c in first]
    assert len(set(ids)) == 3 and ids[0] == session_id(wl.seed, "r1-256-c2", 0)
    # Turn 1 is the single-turn run's request for the same key; each later user message is new and as long.
    single = PromptBook("Summarise.", wl.seed, CALIBRATION).messages("r1-256-c2/0", 256)
    assert first[0].first["messages"] == single
    words = {len(m["content"].split()) for c in first for m in (c.first["messages"][0], c.user(2), c.user(3))}
    assert len(words) == 1 and first[0].user(2) != first[0].user(3) != first[1].user(2)
    other = run_conversations(_workload(tmp_path, seed=8), MODEL, PromptBook("Summarise.", 8, CALIBRATION), "r1-256-c2", 256)
    assert [c.headers[HEADER] for c in other] != ids and other[0].user(2) != first[0].user(2)


def _ground_truth(path: Path, count: int) -> list[dict[str, Any]]:
    """The simulator's ``count`` request records (each written when its response ends, just after the client
    read it)."""
    lines: list[dict[str, Any]] = []
    for _ in range(100):
        lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        if len(lines) >= count:
            break
        time.sleep(0.05)
    return lines


def _assert_histories_grow_exactly(conversations: list[Conversation], received: list[dict[str, Any]]) -> None:
    by_session: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(received, key=lambda r: r["arrival"]):
        by_session.setdefault(record["headers"][HEADER.lower()], []).append(record)
    assert len(by_session) == len(conversations)
    for conversation in conversations:
        turns = by_session[conversation.headers[HEADER]]
        assert [t["messages"] for t in turns] == [b["messages"] for b in conversation.bodies]  # sent is received
        for k in range(1, len(turns)):
            before, answer = turns[k - 1], turns[k - 1]["content"]
            assert answer  # the simulator answered with content, which the next turn re-sends as received
            assert turns[k]["messages"] == [*before["messages"], {"role": "assistant", "content": answer}, conversation.user(k + 1)]
            assert turns[k]["prompt_tokens"] > before["prompt_tokens"] + before["completion_tokens"]


async def _local(url: str, conversations: list[Conversation], concurrency: int) -> list[list[dict[str, Any]]]:
    async with httpx.AsyncClient() as client:
        t0 = time.monotonic()

        async def send(lane: int, index: int, body: dict[str, Any], headers: dict[str, str]):
            outcome = await stream_chat(client, url + "/v1/chat/completions", body, clock=time.monotonic, timeout=30, lane=lane, headers=headers)
            return timing_fields(outcome, t0), outcome.text

        return await send_conversations(send, conversations, concurrency=concurrency)


def test_histories_grow_exactly_as_the_engine_received_them_and_later_turns_hit_its_cache(tmp_path: Path) -> None:
    wl = _workload(tmp_path)
    truth = tmp_path / "truth.jsonl"
    server = start_simulator(configure_profile("original", prefix_caching=True), time_scale=50, ground_truth=truth, ground_truth_bodies=True)
    try:
        conversations = run_conversations(wl, MODEL, PromptBook("Summarise.", wl.seed, CALIBRATION), "r1-256-c2", 256)
        timings = asyncio.run(_local(server.url, conversations, concurrency=2))
    finally:
        server.stop()
    assert [len(t) for t in timings] == [3, 3, 3] and all(t["ok"] for ts in timings for t in ts)
    _assert_histories_grow_exactly(conversations, _ground_truth(truth, 9))
    for turns in timings:  # the history re-sent: later turns' prompts are served mostly from the cache
        first, *later = turns
        assert first["cached_tokens"] < 64
        for before, turn in zip(turns, later):
            assert turn["cached_tokens"] >= before["prompt_tokens"] - 16


def test_a_failed_turn_ends_its_conversation_and_its_later_turns_are_journalled_as_not_sent(tmp_path: Path) -> None:
    wl = _workload(tmp_path, requests_per_run=2, concurrency=[1])
    truth = tmp_path / "truth.jsonl"
    # One request in five fails (the fifth, counted from 0: request 4): conversation 1's second turn.
    server = start_simulator("original", time_scale=50, ground_truth=truth, ground_truth_bodies=True, faults=["http-500=0.2"])
    try:
        conversations = run_conversations(wl, MODEL, PromptBook("Summarise.", wl.seed, CALIBRATION), "r1-256-c1", 256)
        timings = asyncio.run(_local(server.url, conversations, concurrency=1))
    finally:
        server.stop()
    assert [t["ok"] for t in timings[0]] == [True, True, True]
    ok, failed, unsent = timings[1]
    assert ok["ok"] and not failed["ok"] and failed["error"].startswith("http 500")
    assert not unsent["ok"] and unsent["error"] == "not sent: turn 2 of its conversation failed"
    assert "t_send_s" not in unsent and unsent["e2e_s"] is None and unsent["http_status"] is None
    received = _ground_truth(truth, 5)  # read once the server stopped: every record it will write is written
    assert len(received) == 5  # the third turn of conversation 1 never reached the engine
    assert [len(c.bodies) for c in conversations] == [3, 2]


async def _through_workers(url: str, conversations: list[Conversation]) -> list[list[dict[str, Any]]]:
    async with worker_pool(2, time.monotonic()) as pool:
        await pool.open_connections(url, 2)
        await pool.begin()

        async def send(lane: int, index: int, body: dict[str, Any], headers: dict[str, str]):
            return await pool.send_turn(url + "/v1/chat/completions", lane, index, body, headers, timeout=30)

        timings = await send_conversations(send, conversations, concurrency=2)
        await pool.end()
        return timings


def test_worker_processes_send_the_turns_the_collector_builds_from_their_answers(tmp_path: Path) -> None:
    wl = _workload(tmp_path)
    truth = tmp_path / "truth.jsonl"
    server = start_simulator("original", time_scale=50, ground_truth=truth, ground_truth_bodies=True)
    try:
        conversations = run_conversations(wl, MODEL, PromptBook("Summarise.", wl.seed, CALIBRATION), "r1-256-c2", 256)
        timings = asyncio.run(_through_workers(server.url, conversations))
    finally:
        server.stop()
    assert all(t["ok"] and t["t_send_s"] >= 0 for ts in timings for t in ts)
    _assert_histories_grow_exactly(conversations, _ground_truth(truth, 9))


def _bundle(root: Path, turns: int | None, edit: Any = None) -> Path:
    """A minimal A/B/A bundle of one run of two conversations (of ``turns`` turns, or single requests), its
    second conversation's first request (its journal's fourth line, or third) passed through ``edit``."""
    workload: dict[str, Any] = {
        "input_nominal": [256],
        "concurrency": [2],
        "repetitions": 1,
        "requests_per_run": 2,
        "max_tokens": 8,
        "temperature": 0,
    }
    if turns is not None:
        workload["turns"] = turns
    phases = [("original", "control", "before"), ("layout", "candidate", "candidate"), ("original", "control", "restored")]
    arms = [{"seq": i, "arm": a, "role": r, "phase": p, "journal": f"journals/0{i}-{a}-{p}.jsonl"} for i, (a, r, p) in enumerate(phases, 1)]
    trial = {
        "schema": "evidence-kit/trial/v1",
        "trial_id": "chat",
        "title": "Chat",
        "engine_kind": "simulated",
        "decision_rule": {"min_improvement": 0.1},
        "workload": workload,
        "arms": arms,
    }
    (root / "journals").mkdir(parents=True)
    (root / "trial.json").write_text(json.dumps(trial))
    per = turns or 1
    for arm in arms:
        records = [
            {
                "type": "header",
                "schema": "evidence-kit/journal/v1",
                "trial_id": "chat",
                "arm": arm["arm"],
                "phase": arm["phase"],
                "seq": arm["seq"],
                "started_at": "2026-12-26T00:00:00Z",
                "engine": {},
                "private": {},
            }
        ]
        for i in range(2 * per):
            request = {
                "type": "request",
                "run": "r1-256-c2",
                "repetition": 1,
                "input_nominal": 256,
                "concurrency": 2,
                "index": i,
                "warmup": False,
                "ok": True,
                "error": None,
                "prompt_tokens": 300 * (i % per + 1),
                "completion_tokens": 8,
                "e2e_s": 0.1 + i / 100,
                "ttft_s": 0.01,
                "ttft_content_s": 0.01,
                "finish_reason": "length",
            }
            if turns is not None:
                request |= {"conversation": i // per, "turn": i % per + 1}
            records.append(edit(request) if edit is not None and i == per else request)
        records += [
            {
                "type": "run",
                "run": "r1-256-c2",
                "repetition": 1,
                "input_nominal": 256,
                "concurrency": 2,
                "requests": 2 * per,
                "ok": 2 * per,
                "reconciled": None,
                "counters": None,
            },
            {"type": "footer", "ended_at": "2026-12-26T00:01:00Z", "requests": 2 * per, "timed_requests": 2 * per},
        ]
        (root / arm["journal"]).write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def test_the_reader_takes_a_multiturn_journal_and_refuses_turns_that_do_not_belong(tmp_path: Path) -> None:
    from evidence_kit.analyze import analyze
    from evidence_kit.read import load_trial

    evidence = load_trial(_bundle(tmp_path / "ok", 3))
    assert evidence.trial.workload.planned_per_arm == 6 and [r.turn for r in evidence.arms[0].timed] == [1, 2, 3] * 2
    group = analyze(evidence).trials[0].groups[0]
    assert group.turns is not None and [t.input_tokens_min for t in group.turns] == [300, 600, 900]
    assert group.input_tokens_max == 300  # the group is its conversations' first turns
    assert "turns" not in analyze(load_trial(_bundle(tmp_path / "one", None))).trials[0].groups[0].model_dump()
    cases = [
        (3, lambda r: {k: v for k, v in r.items() if k not in ("conversation", "turn")}, "without its conversation"),
        (3, lambda r: {**r, "turn": 4}, "outside the workload's 2 conversations of 3 turns"),
        (3, lambda r: {**r, "conversation": 2}, "outside the workload's 2 conversations"),
        (3, lambda r: {**r, "turn": None}, "conversation and turn come together"),
        (None, lambda r: {**r, "conversation": 1, "turn": 1}, "in a trial whose workload is single-turn"),
    ]
    for n, (turns, edit, said) in enumerate(cases):
        bundle = _bundle(tmp_path / f"bad{n}", turns, edit)
        with pytest.raises(BadInput) as caught:
            load_trial(bundle)
        assert said in str(caught.value) and caught.value.line == (3 if turns is None else 5), (said, caught.value)
        assert str(caught.value).startswith(str(bundle / "journals" / "01-original-before.jsonl"))
