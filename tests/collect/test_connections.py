"""A run's connections are open before its first request, one per slot, over real HTTP on 127.0.0.1.

The engine is the simulator's app behind a recorder that notes each request's path, body
seed and the client's port: a new port is a new TCP connection the server accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from evidence_kit.collect import collect_trial
from evidence_kit.collect.connections import SHARED_CONNECTIONS, arm_client, open_connections
from evidence_kit.collect.prompts import PromptBook
from evidence_kit.collect.runs import send_all
from evidence_kit.engine_sim.app import create_app
from evidence_kit.engine_sim.server import configure_profile
from evidence_kit.read import load_trial

from .conftest import write_plan

MODEL = "sim-org/sim-model-7b-simulated"


class Recorder:
    """ASGI middleware: one entry per HTTP request, ``{"path", "port", "seed"}``, in arrival order."""

    def __init__(self, app: Any, *, models: bool, close: bool = False):
        self.app, self.models, self.close = app, models, close
        self.log: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        entry: dict[str, Any] = {"path": scope["path"], "port": scope["client"][1], "seed": None}
        self.log.append(entry)
        if scope["path"] == "/v1/models" and not self.models:
            await send({"type": "http.response.start", "status": 404, "headers": [(b"content-length", b"9")]})
            return await send({"type": "http.response.body", "body": b"Not Found"})
        body = b""

        async def keep() -> Any:
            nonlocal body
            message = await receive()
            body += message.get("body", b"")
            if message["type"] == "http.request" and not message.get("more_body") and body.startswith(b"{"):
                entry["seed"] = json.loads(body).get("seed")
            return message

        async def closing(message: Any) -> None:
            if message["type"] == "http.response.start":  # every reply ends its connection
                message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)

        await self.app(scope, keep, closing if self.close else send)

    def ports(self, path: str) -> list[int]:
        return [e["port"] for e in self.log if e["path"] == path]


@contextlib.contextmanager
def recorded_engine(
    profile: str = "original", *, keep_alive_s: float = 5.0, models: bool = True, close: bool = False
) -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder(create_app(configure_profile(profile), time_scale=50), models=models, close=close)
    config = uvicorn.Config(recorder, log_level="error", lifespan="on", timeout_keep_alive=keep_alive_s)  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    sock = socket.create_server(("127.0.0.1", 0))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", recorder
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def bodies(n: int) -> list[dict[str, Any]]:
    return [{"model": MODEL, "messages": [{"role": "user", "content": f"Note {i}."}], "max_tokens": 8, "seed": i} for i in range(n)]


def run(url: str, concurrency: int, *, opened: bool = True, pause_s: float = 0.0) -> tuple[int, list[bool]]:
    """Open ``concurrency`` lanes (unless not ``opened``), wait ``pause_s``, send a run of twice that many."""

    async def go() -> tuple[int, list[bool]]:
        async with arm_client(30) as client:
            count = await open_connections(client, url, concurrency) if opened else 0
            await asyncio.sleep(pause_s)
            outcomes = await send_all(
                client, f"{url}/v1/chat/completions", bodies(2 * concurrency), concurrency=concurrency, clock=time.monotonic, timeout=30
            )
        return count, [o.ok for o in outcomes]

    return asyncio.run(go())


def test_a_run_sends_on_connections_opened_before_it_one_per_slot() -> None:
    concurrency = SHARED_CONNECTIONS + 4  # lanes are not bounded by the shared pool
    with recorded_engine() as (url, recorder):
        count, ok = run(url, concurrency)
    warm, timed = recorder.ports("/v1/models"), recorder.ports("/v1/chat/completions")
    assert count == concurrency and all(ok) and len(timed) == 2 * concurrency
    assert len(set(warm)) == concurrency  # the server accepted C connections before the first timed request
    assert set(timed) == set(warm)  # and none during the timed requests
    first = next(i for i, e in enumerate(recorder.log) if e["path"] == "/v1/chat/completions")
    assert all(e["path"] == "/v1/models" for e in recorder.log[:first])


def test_without_opening_them_the_run_opens_its_connections_itself() -> None:
    with recorded_engine() as (url, recorder):
        count, ok = run(url, 4, opened=False)
    assert count == 0 and all(ok) and not recorder.ports("/v1/models")
    assert len(set(recorder.ports("/v1/chat/completions"))) == 4  # still one connection per slot


def test_connections_the_engine_closed_while_idle_are_opened_again() -> None:
    with recorded_engine(keep_alive_s=0.1) as (url, recorder):
        count, ok = run(url, 3, pause_s=0.6)  # the engine closes every idle connection after 0.1 s
    warm, timed = recorder.ports("/v1/models"), recorder.ports("/v1/chat/completions")
    assert count == 3 and all(ok) and len(ok) == 6
    assert not set(timed) & set(warm) and len(set(timed)) == 3  # new ones, each slot's reused within the run


def test_an_engine_that_closes_every_connection_after_its_reply_still_serves_the_run() -> None:
    with recorded_engine(close=True) as (url, recorder):
        count, ok = run(url, 3)
    timed = recorder.ports("/v1/chat/completions")
    assert count == 3 and all(ok) and len(ok) == 6
    assert len(set(timed)) == 6 and not set(timed) & set(recorder.ports("/v1/models"))  # a new one each time


def test_an_endpoint_without_v1_models_still_has_its_connections_opened() -> None:
    with recorded_engine(models=False) as (url, recorder):
        count, ok = run(url, 3)
    assert count == 3 and all(ok)
    assert set(recorder.ports("/v1/chat/completions")) == set(recorder.ports("/v1/models"))


def test_an_endpoint_that_refuses_connections_opens_none_and_raises_nothing() -> None:
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()

    async def go() -> int:
        async with arm_client(5) as client:
            return await open_connections(client, f"http://127.0.0.1:{port}", 4)

    assert asyncio.run(go()) == 0


@pytest.mark.slow
def test_every_timed_run_of_a_trial_finds_its_connections_open(tmp_path: Path) -> None:
    with recorded_engine("original") as (original, log_a), recorded_engine("layout-candidate") as (layout, log_b):
        plan = write_plan(
            tmp_path / "plan.toml",
            arms={"original": {"base_url": original, "model": MODEL}, "layout": {"base_url": layout, "model": MODEL}},
            workload={"concurrency": [1, 3, 5], "requests_per_run": 5},
        )
        result = collect_trial(plan, tmp_path / "raw")
    assert result.ok, result.problems
    evidence = load_trial(tmp_path / "raw")
    wl = evidence.trial.workload
    for arm in evidence.arms:
        log = (log_a if arm.ref.arm == "original" else log_b).log
        # The journal keeps its shape: the planned timed requests and the warmup, nothing for the connections.
        assert len(arm.timed) == wl.planned_per_arm and len(arm.requests) == wl.planned_per_arm + wl.warmup_requests
        for run_record in arm.runs:
            seeds = {PromptBook.request_seed(wl.seed, r.key) for r in arm.timed if r.run == run_record.run}
            at = [i for i, e in enumerate(log) if e["seed"] in seeds and e["path"] == "/v1/chat/completions"]
            # The before and restored arms share one engine and send the same prompts: each takes its own.
            at = at[-len(seeds) :] if arm.ref.phase == "restored" else at[: len(seeds)]
            assert len(seeds) == wl.requests_per_run
            ports = {log[i]["port"] for i in at}
            assert len(ports) == run_record.concurrency
            assert ports <= {e["port"] for e in log[: min(at)]}, run_record.run  # no connection opened during the run
