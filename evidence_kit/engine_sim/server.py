"""Serving the simulator: the vLLM-like start-up log, uvicorn, and helpers that start it for tests.

``running_simulator`` runs the server in a background thread of this process (fast, for tests
and the demo); ``simulator_process`` starts ``evidence-kit sim`` as a subprocess, as a trial
plan's start command would. Both bind 127.0.0.1 on a free port and return once ``/health``
answers.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
import uvicorn

from ..errors import BadInput
from .app import SimState, SimulatedDrop, create_app
from .faults import parse_fault_rates
from .profile import Identity, Profile, load_profile

__all__ = [
    "configure_profile",
    "startup_log",
    "serve",
    "running_simulator",
    "start_simulator",
    "simulator_command",
    "simulator_process",
    "Simulator",
    "IDENTITY_ENV_PREFIX",
]

IDENTITY_ENV_PREFIX = "EVIDENCE_KIT_SIM_"
_URL_LINE = re.compile(r"^(http://\S+)$")


def configure_profile(
    profile: str | Path | Profile = "original",
    *,
    identity: dict[str, Any] | None = None,
    faults: list[str] | tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    dialect: str | None = None,
    prefix_caching: bool | None = None,
) -> Profile:
    """A profile with identity overrides applied: environment first, then explicit values.

    ``EVIDENCE_KIT_SIM_SERVED_MODEL_NAME=...`` (any :class:`Identity` field; ``GPU_UUIDS`` is
    comma-separated) and ``identity={"host": ...}`` let a test plant canary values.
    """
    base = profile if isinstance(profile, Profile) else load_profile(profile)
    environ: Mapping[str, str] = os.environ if env is None else env
    values = base.identity.model_dump()
    for name in Identity.model_fields:
        raw = environ.get(IDENTITY_ENV_PREFIX + name.upper())
        if raw is not None:
            values[name] = raw.split(",") if name == "gpu_uuids" else raw
    for name, value in (identity or {}).items():
        if name not in Identity.model_fields:
            raise BadInput(f"unknown identity field {name!r} (one of {', '.join(Identity.model_fields)})")
        values[name] = value.split(",") if name == "gpu_uuids" and isinstance(value, str) else value
    kv_cache = base.kv_cache if prefix_caching is None else base.kv_cache.model_copy(update={"prefix_caching": prefix_caching})
    return base.model_copy(
        update={
            "identity": Identity.model_validate(values),
            "kv_cache": kv_cache,
            "faults": parse_fault_rates(list(faults), base.faults),
            "dialect": dialect or base.dialect,
        }
    )


def startup_log(profile: Profile, time_scale: float) -> list[str]:
    """The lines a vLLM server prints at start-up, with this profile's (simulated) values."""
    ident, sched, kv, spec = profile.identity, profile.scheduler, profile.kv_cache, profile.speculation
    stamp = time.strftime("%m-%d %H:%M:%S")
    lines = [
        f"vLLM API server version {ident.engine_version} (SIMULATED by evidence-kit, profile {profile.name})",
        f"non-default args: {{'model': '{ident.model_path}', 'served_model_name': ['{ident.served_model_name}'], "
        f"'revision': '{ident.revision}', 'max_model_len': {sched.max_model_len}, 'max_num_seqs': {sched.max_num_seqs}, "
        f"'block_size': {sched.block_size}, 'kv_cache_dtype': '{kv.dtype}'}}",
        f"image: {ident.image}; host: {ident.host}; container id: {ident.container_id}",
        *(f"GPU {i}: {uuid} (simulated)" for i, uuid in enumerate(ident.gpu_uuids)),
    ]
    if spec.enabled:
        draft = f", draft model {spec.draft_model}, draft KV {spec.draft_kv_dtype}" if spec.draft_model else ""
        lines.append(f"Speculative decoding: method={spec.method}, num_speculative_tokens={spec.k}{draft}")
    lines += [
        f"Available KV cache memory: {kv.budget_bytes / 2**30:.2f} GiB ({kv.budget_bytes} bytes)",
        f"# GPU blocks: {profile.num_gpu_blocks}, # CPU blocks: 0",
        f"GPU KV cache size: {profile.token_slots:,} tokens",
        f"Maximum concurrency for {sched.max_model_len:,} tokens per request: {profile.token_slots / sched.max_model_len:.2f}x",
        f"Simulated time scale: {time_scale:g}x faster than the modelled engine",
        *_dialect_capacity_line(profile),
    ]
    return [f"INFO {stamp} [evidence_kit.engine_sim] {line}" for line in lines]


def _dialect_capacity_line(profile: Profile) -> list[str]:
    """The capacity line of the engine the simulator's /metrics speaks (the collector reads it)."""
    sched = profile.scheduler
    if profile.dialect == "sglang":  # the SGLang scheduler's start-up line
        return [
            f"max_total_num_tokens={profile.token_slots}, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            f"max_running_requests={sched.max_num_seqs}, context_len={sched.max_model_len}"
        ]
    if profile.dialect == "llama.cpp":  # llama-server's slots line: the simulator's one pool is a unified KV cache
        return [f"srv    load_model: initializing, n_slots = {sched.max_num_seqs}, n_ctx_slot = {profile.token_slots}, kv_unified = 'true'"]
    return []


class _QuietDrops(logging.Filter):
    """A simulated dropped connection is intended: one line, not a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while exc is not None and not isinstance(exc, SimulatedDrop):
            exc = exc.__cause__ or exc.__context__ or (exc.exceptions[0] if isinstance(exc, BaseExceptionGroup) else None)
        if isinstance(exc, SimulatedDrop):
            record.msg, record.args, record.exc_info, record.exc_text = f"simulated fault: {exc}", (), None, None
        return True


def _server(app: Any, log_level: str) -> uvicorn.Server:
    logging.getLogger("uvicorn.error").addFilter(_QuietDrops())
    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on", timeout_graceful_shutdown=1)
    return uvicorn.Server(config)


def _bind(host: str, port: int) -> socket.socket:
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and
    # without it Nagle plus delayed ACKs hold back small SSE chunks by ~40 ms.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve(
    profile: Profile,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    time_scale: float = 1.0,
    ground_truth: str | Path | None = None,
    log: IO[str] = sys.stderr,
    url_out: IO[str] = sys.stdout,
    ground_truth_bodies: bool = False,
) -> None:
    """Run the simulator in the foreground until interrupted; print the log, then the URL on ``url_out``."""
    sock = _bind(host, port)
    url = f"http://{host}:{sock.getsockname()[1]}"
    for line in startup_log(profile, time_scale):
        print(line, file=log)
    print(f"INFO {time.strftime('%m-%d %H:%M:%S')} [evidence_kit.engine_sim] Starting vLLM API server 0 on {url}", file=log, flush=True)
    app = create_app(profile, time_scale=time_scale, ground_truth=ground_truth, ground_truth_bodies=ground_truth_bodies)
    server = _server(app, "warning")
    print(url, file=url_out, flush=True)
    server.run(sockets=[sock])


@dataclass
class Simulator:
    """A simulator running in a background thread: its URL, state (engine, faults) and stop()."""

    url: str
    state: SimState
    _server: uvicorn.Server
    _thread: threading.Thread

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


def _wait_healthy(url: str, timeout: float, alive: Any = lambda: True) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError(f"simulator at {url} exited before answering /health")
        try:
            if httpx.get(url + "/health", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.02)
    raise TimeoutError(f"simulator at {url} did not answer /health within {timeout} s")


def start_simulator(
    profile: str | Path | Profile = "original",
    *,
    time_scale: float = 20.0,
    ground_truth: str | Path | None = None,
    identity: dict[str, Any] | None = None,
    faults: list[str] | tuple[str, ...] = (),
    host: str = "127.0.0.1",
    ground_truth_bodies: bool = False,
) -> Simulator:
    """Start a simulator on a free port in a background thread; ``stop()`` it when done."""
    configured = configure_profile(profile, identity=identity, faults=faults)
    app = create_app(configured, time_scale=time_scale, ground_truth=ground_truth, ground_truth_bodies=ground_truth_bodies)
    sock = _bind(host, 0)
    url = f"http://{host}:{sock.getsockname()[1]}"
    server = _server(app, "error")
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="engine-sim", daemon=True)
    thread.start()
    sim = Simulator(url, app.state.sim, server, thread)
    try:
        _wait_healthy(url, 15.0, thread.is_alive)
    except BaseException:
        sim.stop()
        raise
    return sim


@contextlib.contextmanager
def running_simulator(
    profile: str | Path | Profile = "original",
    *,
    time_scale: float = 20.0,
    ground_truth: str | Path | None = None,
    identity: dict[str, Any] | None = None,
    faults: list[str] | tuple[str, ...] = (),
) -> Iterator[str]:
    """``with running_simulator("original", time_scale=20) as url:`` — the base URL (no ``/v1``)."""
    sim = start_simulator(profile, time_scale=time_scale, ground_truth=ground_truth, identity=identity, faults=faults)
    try:
        yield sim.url
    finally:
        sim.stop()


def simulator_command(
    profile: str | Path = "original", *, port: int = 0, time_scale: float = 1.0, extra: list[str] | tuple[str, ...] = ()
) -> list[str]:
    """The ``evidence-kit sim`` command line (with this Python), e.g. for a trial plan's start command."""
    return [sys.executable, "-m", "evidence_kit", "sim", "--profile", str(profile), "--port", str(port), "--time-scale", f"{time_scale:g}", *extra]


@contextlib.contextmanager
def simulator_process(
    profile: str | Path = "original",
    *,
    time_scale: float = 20.0,
    extra: list[str] | tuple[str, ...] = (),
    log: IO[str] | int | None = subprocess.DEVNULL,
    timeout: float = 30.0,
) -> Iterator[str]:
    """Run ``evidence-kit sim`` as a subprocess on a free port; yield its URL once it is healthy."""
    proc = subprocess.Popen(simulator_command(profile, port=0, time_scale=time_scale, extra=extra), stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        match = _URL_LINE.match(line)
        if not match:
            raise RuntimeError(f"evidence-kit sim did not print its URL (got {line!r}, exit {proc.poll()})")
        url = match.group(1)
        _wait_healthy(url, timeout, lambda: proc.poll() is None)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
