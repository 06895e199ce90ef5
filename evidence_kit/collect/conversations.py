"""Multi-turn conversations: each request slot of a run is a conversation of ``turns`` turns.

Turn 1 is the request a single-turn run sends (its prompt keyed ``<run>/<c>``); turn k+1 re-sends
turn k's messages, the assistant's answer to turn k exactly as it streamed (its content text; a
reasoning model's reasoning is not re-sent, as chat clients do), and a new user message keyed
``<run>/<c>/turn<k+1>``, generated like every prompt: sized to the group's nominal input, seeded, the
same in every arm. A conversation's turns go one after another on one lane (one connection, and one
worker), so the run is a closed loop of ``concurrency`` conversations in flight, as AIPerf's and
GuideLLM's multi-turn workloads are. With a ``session_header`` every turn carries the conversation's
id, drawn from the seed and its key (the same in every arm), so a router can keep it on one endpoint.

Where a turn fails, its conversation's later turns depend on an answer that never came: they are not
sent, and are journalled as failed (``not sent: turn k of its conversation failed``), so the run holds
every planned turn and the planned-against-completed count shows what was lost. The conversation's
state (its messages) lives here, in the collector: a worker process or Ray actor sends the body it is
handed and returns the answer's text with its record.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from .client import Outcome
from .prompts import PromptBook
from .runs import request_body

if TYPE_CHECKING:
    from .plan import PlanWorkload  # (plan imports the shapes, which import this)

__all__ = ["Conversation", "run_conversations", "conversation_keys", "session_id", "next_turn", "unsent_record", "send_conversations", "TurnSender"]

# Sends one turn (lane, its index in the run, its body, its headers): its timing fields and the answer's text.
TurnSender = Callable[[int, int, dict[str, Any], dict[str, str]], Awaitable[tuple[dict[str, Any], str]]]


def conversation_keys(run: str, conversation: int, turns: int) -> list[str]:
    """The prompt key of each turn's new user message: turn 1 ``<run>/<c>`` (a single-turn run's), then
    ``<run>/<c>/turn<k>``."""
    return [f"{run}/{conversation}"] + [f"{run}/{conversation}/turn{k}" for k in range(2, turns + 1)]


def session_id(seed: int, run: str, conversation: int) -> str:
    """A conversation's session id: drawn from the seed and its key, the same in every arm."""
    return hashlib.sha256(f"session\x00{seed}\x00{run}/{conversation}".encode()).hexdigest()[:32]


def next_turn(body: dict[str, Any], answer: str, user: dict[str, str], seed: int) -> dict[str, Any]:
    """The body of the next turn: ``body``'s messages, the assistant's ``answer`` to it and the new ``user``
    message; its sampling ``seed`` its own (the same in every arm)."""
    return {**body, "messages": [*body["messages"], {"role": "assistant", "content": answer}, user], "seed": seed}


def unsent_record(failed_turn: int) -> dict[str, Any]:
    """The timing fields of a turn never sent because turn ``failed_turn`` of its conversation failed: no send
    time, no duration, no usage."""
    record = Outcome(t_send=0.0, error=f"not sent: turn {failed_turn} of its conversation failed").record()
    return {**record, "token_events": None, "itl_us": None}


@dataclass
class Conversation:
    """One conversation of a run: its index, its turns' keys, its first turn's body and its headers, and how
    its later turns are made (``user(k)``: turn k's new user message; ``seed(k)``: its sampling seed)."""

    index: int
    keys: list[str]
    first: dict[str, Any]
    user: Callable[[int], dict[str, str]]
    seed: Callable[[int], int]
    headers: dict[str, str] = field(default_factory=dict)
    bodies: list[dict[str, Any]] = field(default_factory=list)  # every body sent, turn by turn

    @property
    def turns(self) -> int:
        return len(self.keys)


def run_conversations(wl: PlanWorkload, model: str, book: PromptBook, run: str, input_nominal: int) -> list[Conversation]:
    """The conversations of run ``run``: turn 1 the request a single-turn run sends, each later turn's new user
    message sized and seeded as every prompt, its session header (if the plan names one); the same in every arm."""
    out = []
    for c in range(wl.requests_per_run):
        keys = conversation_keys(run, c, wl.turns)
        headers = {wl.session_header: session_id(wl.seed, run, c)} if wl.session_header else {}
        out.append(
            Conversation(
                index=c,
                keys=keys,
                first=request_body(wl, model, book, keys[0], input_nominal),
                user=partial(_user_message, book, keys, input_nominal),
                seed=partial(_turn_seed, wl.seed, keys),
                headers=headers,
            )
        )
    return out


def _user_message(book: PromptBook, keys: list[str], input_nominal: int, turn: int) -> dict[str, str]:
    """Turn ``turn``'s new user message: a prompt of the group's nominal size, keyed by its turn."""
    return book.messages(keys[turn - 1], input_nominal)[0]


def _turn_seed(seed: int, keys: list[str], turn: int) -> int:
    return PromptBook.request_seed(seed, keys[turn - 1])


async def _converse(send: TurnSender, lane: int, conversation: Conversation) -> list[dict[str, Any]]:
    """Every turn of ``conversation`` on ``lane``, one after another; a failed turn ends it."""
    timings: list[dict[str, Any]] = []
    body = conversation.first
    for turn in range(1, conversation.turns + 1):
        conversation.bodies.append(body)
        timing, answer = await send(lane, conversation.index * conversation.turns + turn - 1, body, conversation.headers)
        timings.append(timing)
        if not timing["ok"]:
            timings += [unsent_record(turn) for _ in range(turn, conversation.turns)]
            break
        if turn < conversation.turns:
            body = next_turn(body, answer, conversation.user(turn + 1), conversation.seed(turn + 1))
    return timings


async def send_conversations(send: TurnSender, conversations: list[Conversation], *, concurrency: int) -> list[list[dict[str, Any]]]:
    """Every conversation with at most ``concurrency`` in flight (closed loop): slot ``l`` sends on lane ``l``
    and takes the next conversation when its own ends. The timing fields of each conversation's turns, in
    conversation order."""
    timings: list[list[dict[str, Any]] | None] = [None] * len(conversations)
    queue = iter(range(len(conversations)))

    async def slot(lane: int) -> None:
        for index in queue:  # shared iterator: each conversation is taken by exactly one slot
            timings[index] = await _converse(send, lane, conversations[index])

    try:
        async with asyncio.TaskGroup() as group:
            for lane in range(min(concurrency, len(conversations))):
                group.create_task(slot(lane))
    except* Exception as failed:  # a worker that died: the run's one failure, as the single-turn senders raise it
        raise failed.exceptions[0] from None
    return [t for t in timings if t is not None]
