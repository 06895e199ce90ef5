"""Multi-turn conversations: each request slot a conversation of ``turns`` turns, its history re-sent each
turn (docs/plan-file.md#multi-turn-conversations; :mod:`..conversations`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...model.trial import HEADER_TOKEN
from ..conversations import TurnSender, run_conversations, send_conversations
from ..runs import RunSpec
from .base import Batch, Sending, WorkloadShape
from .shared_prefix import count_cache_hits

if TYPE_CHECKING:
    from ..plan import Plan
    from ..prompts import PromptBook
    from ..stages.watch import EngineWatch
    from ..transport import Transport

__all__ = ["MultiTurn", "MULTI_TURN", "RESERVED_HEADERS"]

# Headers a multi-turn workload's session_header may not name: the collector's own, and HTTP's framing and routing.
RESERVED_HEADERS = frozenset(
    {"content-type", "content-length", "host", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "expect"}
)


def _turns_problem(value: int, data: dict[str, Any]) -> str | None:
    if value == 1:
        return None
    if data.get("trace") is not None or data.get("rate") is not None:
        return (
            "turns above 1 is a closed-loop workload (each conversation's next turn is sent when its "
            "previous answer ends, on the same lane); [workload] with "
            + ("trace" if data.get("trace") is not None else "rate")
            + " replays arrivals, not conversations: use concurrency"
        )
    if data.get("prefix_tokens") is not None:
        return (
            "turns above 1 with prefix_tokens is not supported: a conversation's history is its own "
            "shared prefix, and the prefix-cache check could not tell the two apart"
        )
    return None


def _session_header_problem(value: str | None, data: dict[str, Any]) -> str | None:
    if value is None:
        return None
    if not re.fullmatch(HEADER_TOKEN, value):
        return f"session_header {value!r} is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~, nothing else)"
    if value.lower() in RESERVED_HEADERS:
        return f"session_header may not be {value!r}: the collector or HTTP itself sets that header"
    if data.get("turns") == 1:  # absent: turns failed its own check, reported at its line
        return "session_header is set without turns above 1 (it keeps a conversation's turns on one endpoint)"
    return None


class MultiTurn(WorkloadShape):
    """``[workload] turns`` above 1 (and ``session_header``): a closed loop of conversations, each one's turns
    one after another on one lane (one connection, one worker)."""

    name = "multi-turn"
    fields = ("turns", "session_header")
    # A conversation's later turns re-send its history: their cache hits are the point, as a shared prefix's.
    shares_prefix = True

    def field_problem(self, name: str, value: Any, data: dict[str, Any]) -> str | None:
        return _turns_problem(value, data) if name == "turns" else _session_header_problem(value, data)

    def claims(self, plan: Plan, spec: RunSpec) -> bool:
        return plan.workload.turns > 1

    def batch(self, plan: Plan, model: str, book: PromptBook, spec: RunSpec) -> Batch:
        wl = plan.workload
        conversations = run_conversations(wl, model, book, spec.id, spec.input_nominal)
        keys = [k for conversation in conversations for k in conversation.keys]  # every turn is a request of the run
        return Batch(keys, [c.first for c in conversations], [None] * len(keys), conversations=conversations, turns=wl.turns)

    async def send(self, transport: Transport, batch: Batch, how: Sending) -> list[dict[str, Any]]:
        """Every turn's timing fields, in conversation and turn order. One conversation per lane, even on a Ray
        actor whose lanes are handed a request ahead: a turn is due only once the previous answer is back
        here, so nothing could be handed ahead but another conversation's turn."""
        assert batch.conversations is not None

        async def send(lane: int, index: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], str]:
            return await transport.send_turn(how.url, lane, index, body, headers, timeout=how.timeout)

        sender: TurnSender = send
        turns = await send_conversations(sender, batch.conversations, concurrency=how.lanes)
        return [timing for conversation in turns for timing in conversation]

    def after(self, watch: EngineWatch, book: PromptBook, spec: RunSpec, records: list[dict[str, Any]]) -> None:
        # A turn's own words are its new user message: the history before it is the conversation's prefix.
        watch.conversations = True
        count_cache_hits(watch, records, book.unique_tokens(spec.input_nominal))


MULTI_TURN = MultiTurn()
