"""What every workload shape is: the requests of a run, how they are sent, and the plan keys it owns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..runs import RunSpec, request_body

if TYPE_CHECKING:
    from ..conversations import Conversation
    from ..plan import Plan, PlanWorkload
    from ..prompts import PromptBook
    from ..stages.context import ArmContext
    from ..stages.watch import EngineWatch
    from ..transport import Transport

__all__ = ["Batch", "Sending", "WorkloadShape", "numbered_keys", "plain_bodies"]


@dataclass
class Batch:
    """A run's requests as its shape makes them: each one's prompt key and body (a conversation's first turn),
    its shared prefix, its due time from the run's start (an open loop's), and a multi-turn run's
    conversations (``turns`` requests each)."""

    keys: list[str]
    bodies: list[dict[str, Any]]
    prefixes: list[int | None]
    offsets: list[float] | None = None
    conversations: list[Conversation] | None = None
    turns: int | None = None

    def where(self, index: int) -> dict[str, Any]:
        """Where request ``index`` belongs beyond its run: its prompt key, prefix, conversation and turn."""
        turns = self.turns
        return {
            "key": self.keys[index],
            "prefix": self.prefixes[index],
            "conversation": None if turns is None else index // turns,
            "turn": None if turns is None else index % turns + 1,
        }


@dataclass(frozen=True)
class Sending:
    """How one run is sent: where, on how many lanes, from when (the clock reading the schedule counts from),
    each request's limit and an open loop's bound on requests in flight."""

    url: str
    lanes: int
    start: float
    timeout: float
    max_in_flight: int | None = None


def numbered_keys(spec: RunSpec, count: int) -> list[str]:
    """The prompt keys of a single-turn run: ``<run>/<i>``, the same in every arm."""
    return [f"{spec.id}/{i}" for i in range(count)]


def plain_bodies(wl: PlanWorkload, model: str, book: PromptBook, spec: RunSpec, keys: list[str], prefixes: list[int | None]) -> list[dict[str, Any]]:
    """Each key's body at the group's nominal input (opening with its shared prefix, if it has one)."""
    return [request_body(wl, model, book, k, spec.input_nominal, prefix=p) for k, p in zip(keys, prefixes)]


class WorkloadShape:
    """One workload shape: the plan keys it owns (their checks, at their lines), the runs it shapes, their
    requests and how they are sent through a :class:`~..transport.Transport`. Sent as a closed loop
    without offsets, as an open loop with them, unless the shape says otherwise."""

    name: str = ""
    # The [workload] keys this shape owns: field_problem checks each at its own line, in field order.
    fields: tuple[str, ...] = ()
    # Whether the engine's prefix-cache hits are the point of its runs (the reconciliation is told so).
    shares_prefix: bool = False

    def field_problem(self, name: str, value: Any, data: dict[str, Any]) -> str | None:
        """Why ``value`` is wrong for key ``name`` given the keys read before it (``data``), or ``None``."""
        return None

    def plan_problem(self, wl: PlanWorkload) -> str | None:
        """Why the whole workload is wrong for this shape, or ``None``."""
        return None

    def claims(self, plan: Plan, spec: RunSpec) -> bool:
        """Whether this shape makes run ``spec`` (the first shape of the registry that claims a run makes it)."""
        raise NotImplementedError

    def batch(self, plan: Plan, model: str, book: PromptBook, spec: RunSpec) -> Batch:
        """The run's requests: the same keys, bodies and due times in every arm."""
        raise NotImplementedError

    async def prime(self, arm: ArmContext, book: PromptBook, spec: RunSpec, url: str) -> list[dict[str, Any]]:
        """Untimed requests sent before the run's scrape, journalled with it (warmup records)."""
        return []

    async def send(self, transport: Transport, batch: Batch, how: Sending) -> list[dict[str, Any]]:
        """Every request's timing fields, in request order."""
        if batch.offsets is None:
            return await transport.send_all(how.url, batch.bodies, concurrency=how.lanes, timeout=how.timeout)
        return await transport.send_scheduled(
            how.url, batch.bodies, batch.offsets, start=how.start, timeout=how.timeout, max_in_flight=how.max_in_flight
        )

    def after(self, watch: EngineWatch, book: PromptBook, spec: RunSpec, records: list[dict[str, Any]]) -> None:
        """What the run's records tell the arm's closing checks."""
        return None
