"""Workers as Ray actors: ``collect --ray ADDRESS`` streams the timed requests from a Ray cluster's nodes.

Each worker of :mod:`.workers` becomes an actor (:class:`WorkerActor`) answering the
same commands with the same :class:`~.worker_process.WorkerCore`, so everything else is
unchanged: one request queue the collector holds (a closed loop, at most C in flight),
records merged in index order by one writer, the same journal, ``--resume`` losing and
doubling nothing. Each actor asks for one CPU (a worker keeps one core busy at its
share of the load) and the actors are spread over the cluster's nodes.

Only durations cross machines: an actor times its requests on its node's monotonic
clock from its anchor, and the pool places the anchor on the arm's clock
(:meth:`~.workers.Handle.place`), exactly on the collector's own node, within half the
``begin`` round trip on another. Which node an actor ran on is private: its entry of the
run record's ``client.processes`` names the node by its IP address (``ray_node``), and the
run record's ``private`` holds each node's address, host name and Ray node id (``ray_nodes``), harvested
and pseudonymised by ``redact`` like a journal header's.

Ray is an optional extra (``pip install 'evidence-kit[ray]'``); nothing here imports it
until a collection asks for it. The collector runs on a node of the cluster (the head, or
a machine joined with ``ray start --address``), as any Ray driver does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator
from typing import Any

from ..errors import EXIT_FAILED, BadInput, EvidenceError
from .worker_process import WorkerCore
from .workers import Handle, WorkerFailed, WorkerPool, hello

__all__ = ["RayUnavailable", "WorkerActor", "require_ray", "connect", "disconnect", "ray_pool", "INSTALL_HINT"]

INSTALL_HINT = "pip install 'evidence-kit[ray]'"
# How long the cluster's address may take to accept a connection before it is called unreachable
# (Ray's own client retries for minutes before it gives up).
CONNECT_TIMEOUT_S = 5.0


class RayUnavailable(EvidenceError):
    """The Ray cluster cannot be reached or used: nothing was collected (exit 1)."""

    exit_code = EXIT_FAILED


def require_ray() -> None:
    """Refuse ``--ray`` where Ray is not installed (exit 2), before anything is written."""
    try:
        import ray  # noqa: F401 - whether it imports is the question
    except ImportError:
        raise BadInput(f"--ray needs Ray, which is not installed here: {INSTALL_HINT}") from None


def _resolved(address: str) -> str | None:
    """``host:port`` of the cluster ``address`` names ("auto": the one ``ray start`` left on this machine)."""
    from ray._private import services  # Ray's own resolution of "auto" and of a host name

    with contextlib.suppress(Exception):
        return services.canonicalize_bootstrap_address(address)
    return None


def connect(address: str) -> dict[str, Any]:
    """Join the Ray cluster at ``address`` as its driver; what the pool needs of it (the driver's node, the CPUs).

    Raises :class:`RayUnavailable` (one line) when nothing answers there, within :data:`CONNECT_TIMEOUT_S`.
    """
    require_ray()
    if address.startswith("ray://"):
        raise BadInput(
            "--ray takes the address of a cluster the collector runs on (HOST:PORT or auto); a Ray Client address (ray://) is not supported"
        )
    import ray

    target = _resolved(address)
    if target is None:
        raise RayUnavailable(
            f"no Ray cluster found at {address!r}" + (" (none started on this machine; pass its HOST:PORT)" if address == "auto" else "")
        )
    host, _, port = target.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except (OSError, ValueError) as err:
        said = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise RayUnavailable(f"no Ray cluster answers at {address} ({target}: {said})") from None
    try:
        ray.init(address=target, logging_level=logging.ERROR, log_to_driver=False, namespace="evidence-kit", configure_logging=True)
    except Exception as err:  # Ray raises ConnectionError, RuntimeError, ValueError...: one line whatever it is
        raise RayUnavailable(
            f"could not join the Ray cluster at {address}: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        ) from None
    untyped: Any = ray  # some of Ray's functions carry no annotations
    return {"node_id": ray.get_runtime_context().get_node_id(), "cpus": int(untyped.cluster_resources().get("CPU", 0))}


def disconnect() -> None:
    """Leave the cluster (its actors are ended with their arms)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()


class WorkerActor:
    """One worker on a Ray node: the commands of :class:`~.worker_process.WorkerCore` as one actor method."""

    def __init__(self) -> None:
        self.core = WorkerCore()

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = await self.core.answer(message)
        if message.get("op") == "hello":
            import ray

            untyped: Any = ray  # some of Ray's functions carry no annotations
            reply["node"] = {
                "node_ip": untyped.util.get_node_ip_address(),
                "hostname": socket.gethostname(),
                "ray_node_id": ray.get_runtime_context().get_node_id(),
            }
        return reply


def _reason(err: BaseException) -> str:
    """Why an actor call failed, in a few words (Ray's messages run to many lines)."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    said = next((line for line in lines if line.startswith("The actor is dead because")), lines[0] if lines else "")
    return f"{type(err).__name__}: {said[:160]}"


class _RayWorker(Handle):
    """The collector's end of one actor."""

    # A call to an actor takes milliseconds each way (tens on a loaded node): with one request per lane
    # the lane would idle that long between requests, below the run's concurrency; with the next one
    # queued in the actor, it is sent the moment the one before it ends (bench/collect_ray.py).
    depth = 2

    def __init__(self, number: int, actor: Any, driver_node: str):
        self.number, self.actor, self.driver_node = number, actor, driver_node
        self.node: dict[str, Any] | None = None
        self.pid: int | None = None
        self.gone: str | None = None

    def failure(self) -> WorkerFailed:
        where = f" (pid {self.pid} on node {self.node['node_ip']})" if self.node and self.pid else ""
        return WorkerFailed(f"Ray actor {self.number}{where} {self.gone or 'stopped answering'}")

    async def ask(self, message: dict[str, Any], reply: Any, timeout: float) -> dict[str, Any]:
        import ray

        if self.gone is not None:
            raise self.failure()
        ref = self.actor.answer.remote(message)
        try:
            answer: dict[str, Any] = await asyncio.wait_for(asyncio.wrap_future(ref.future()), timeout)
        except TimeoutError:
            waiting = " (the cluster may have no free CPU for it: each actor asks for one)" if message["op"] == "hello" else ""
            self.gone = f"did not answer {message['op']!r} within {timeout:g}s{waiting}"
            raise self.failure() from None
        except ray.exceptions.RayActorError as err:
            self.gone = f"died ({_reason(err)})"
            raise self.failure() from None
        except ray.exceptions.RayError as err:
            self.gone = f"failed ({_reason(err)})"
            raise self.failure() from None
        if not isinstance(answer, dict) or answer.get("op") != (reply if isinstance(reply, str) else "done"):
            self.gone = "sent a malformed reply"
            raise self.failure()
        if answer["op"] == "clock":
            node = answer.get("node")
            if not isinstance(node, dict) or not isinstance(node.get("node_ip"), str):
                self.gone = "sent a malformed reply (no node)"
                raise self.failure()
            self.node, self.pid = node, answer.get("pid")
            self.same_machine = node.get("ray_node_id") == self.driver_node
        return answer

    def where(self) -> dict[str, Any]:
        return {"ray_node": self.node["node_ip"]} if self.node else {}

    def private(self) -> dict[str, Any] | None:
        return dict(self.node) if self.node else None

    async def close(self) -> None:
        self.kill()

    def kill(self) -> None:
        import ray

        with contextlib.suppress(Exception):  # already dead, or the cluster gone: nothing left to end
            ray.kill(self.actor)


@contextlib.asynccontextmanager
async def ray_pool(count: int, t0: float, lanes: int, driver: dict[str, Any]) -> AsyncIterator[WorkerPool]:
    """``count`` actors for one arm (each serving up to ``lanes`` requests at once), spread over the cluster;
    all of them ended when the block ends, on an error or a cancellation too."""
    import ray

    actor_class = ray.remote(WorkerActor)
    started: list[_RayWorker] = []
    try:
        for number in range(count):
            actor = actor_class.options(num_cpus=1, max_concurrency=lanes + 8, scheduling_strategy="SPREAD").remote()
            started.append(_RayWorker(number, actor, driver["node_id"]))
        await asyncio.gather(*(hello(worker) for worker in started))
        yield WorkerPool(list(started), t0)
    finally:
        for worker in started:
            worker.kill()
