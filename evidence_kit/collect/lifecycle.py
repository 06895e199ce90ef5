"""Arm lifecycle: start and stop an engine, wait until it serves, capture its identity.

Start commands run through ``/bin/sh`` in their own session, with stdout and
stderr captured to the arm's log; stopping runs the plan's stop command, then
ends the whole process group (TERM, then KILL). A start command that exits 0
before readiness is taken as detaching (``docker run -d``) and readiness is
still awaited; one that exits non-zero fails the arm with its log tail.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ..model.dialects import DIALECTS, Dialect
from .metrics import Scrape, config_fingerprint, kv_token_slots, scrape

__all__ = [
    "EngineProcess",
    "EngineFailed",
    "Identity",
    "capture_identity",
    "collector_info",
    "free_port",
    "fill_placeholders",
    "wait_ready",
    "log_kv_slots",
    "kill_group",
    "run_command",
    "cache_settings",
]


class EngineFailed(Exception):
    """The engine did not start, or did not become ready: the arm fails, recorded.

    ``public`` goes into the journal as is; ``log_tail`` may hold private text
    (paths, model names) and goes under the check's ``private`` field.
    """

    def __init__(self, public: str, log_tail: str = ""):
        super().__init__(public)
        self.public, self.log_tail = public, log_tail[-600:]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fill_placeholders(text: str, values: dict[str, str]) -> str:
    """Replace ``{port}``, ``{python}``... only: shell braces (``${X}``, JSON) stay as written."""
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def _log_tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])


@dataclass
class EngineProcess:
    """A locally started engine (its shell and process group) and its log file."""

    command: str
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)
    popen: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0

    def start(self) -> None:
        """Launch the start command in a new session, output appended to the log."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        try:
            self.popen = subprocess.Popen(
                ["/bin/sh", "-c", self.command],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, **self.env},
            )
        finally:
            log.close()
        self.started_at = time.time()

    @property
    def pgid(self) -> int | None:
        return self.popen.pid if self.popen is not None else None

    def exited(self) -> int | None:
        """The shell's exit code once it ended, else ``None``."""
        return None if self.popen is None else self.popen.poll()

    def group_alive(self) -> bool:
        """Whether any process of the engine's group still runs."""
        if self.pgid is None:
            return False
        try:
            os.killpg(self.pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def stop(self, stop_command: str | None, *, grace_s: float = 10.0) -> int | None:
        """Run the stop command (if any), then TERM and, after ``grace_s``, KILL the group.

        Returns the stop command's exit status (``-1`` when it timed out), ``None`` without one.
        """
        status = run_command(stop_command, self.log_path, self.env) if stop_command else None
        if self.pgid is None:
            return status
        kill_group(self.pgid, grace_s=grace_s, reap=self.popen.poll if self.popen else None)
        if self.popen is not None:
            self.popen.wait(timeout=grace_s)
        return status


def run_command(command: str, log_path: Path, env: dict[str, str], *, timeout_s: float = 300.0) -> int:
    """Run a stop (or other) shell command to completion, output appended to ``log_path``."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        try:
            done = subprocess.run(
                ["/bin/sh", "-c", command],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=timeout_s,
                check=False,
                env={**os.environ, **env},
            )
        except subprocess.TimeoutExpired:
            return -1
    return done.returncode


def kill_group(pgid: int, *, grace_s: float = 10.0, reap: Callable[[], object] | None = None) -> None:
    """TERM a process group, KILL it if still alive after ``grace_s`` (bounded wait).

    ``reap`` collects our own child's exit status: an unreaped zombie still
    counts as a group member and would make every stop wait the full grace.
    """
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if reap is not None:
                reap()
            try:
                os.killpg(pgid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.05)


async def wait_ready(client: httpx.AsyncClient, url: str, *, timeout_s: float, engine: EngineProcess | None) -> float:
    """Poll ``url`` until it answers 200; seconds waited. Raises :class:`EngineFailed`.

    Neither a poll nor the pause between polls reaches past the deadline, so a hanging
    readiness URL fails within ``timeout_s`` (plus a 0.1 s floor per poll), not 5 s later.
    """
    start = time.monotonic()
    deadline = start + timeout_s
    delay = 0.05
    while True:
        if engine is not None:
            code = engine.exited()
            if code not in (None, 0):
                raise EngineFailed(f"start command exited with status {code} before ready", _log_tail(engine.log_path))
        try:
            response = await client.get(url, timeout=max(min(5.0, deadline - time.monotonic()), 0.1))
            if response.status_code == 200:
                return time.monotonic() - start
        except httpx.HTTPError:
            pass
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise EngineFailed(f"not ready after {timeout_s:g}s", _log_tail(engine.log_path) if engine is not None else "")
        await asyncio.sleep(min(delay, remaining))
        delay = min(delay * 1.5, 1.0)


def log_kv_slots(log_path: Path | None, dialect: Dialect) -> int | None:
    """KV capacity from the dialect's start-up log line (the last one logged of the first of its
    patterns that matches): vLLM's "KV cache size: N tokens", SGLang's "max_total_num_tokens=N",
    llama.cpp's "n_slots = S, n_ctx_slot = C" (S x C, or C when its KV cache is unified), else its
    "llama_context: n_ctx = N"."""
    if log_path is None or not log_path.exists() or not dialect.capacity_log:
        return None
    text = log_path.read_text(encoding="utf-8", errors="replace")
    for pattern in dialect.capacity_log:
        found = list(re.finditer(pattern, text))
        if found:
            groups = found[-1].groupdict()
            if groups.get("tokens") is not None:
                return _count(groups["tokens"])
            return _count(groups["slots"]) * _count(groups["per_slot"])
    return None


def _count(digits: str) -> int:
    return int(digits.replace(",", "").replace("_", ""))


@dataclass
class Identity:
    """Who is serving: its identities (the header's ``private``), its public settings and version (the
    header's ``engine``), and a comparable fingerprint."""

    private: dict[str, Any]
    kv_token_slots: int | None
    fingerprint: str
    process_start: float | None
    models: list[str]
    engine: dict[str, Any] = field(default_factory=dict)  # EngineInfo's fields besides kv_token_slots
    simulated: bool = False  # /version says "simulated": true (evidence-kit's simulator does)
    dialect: Dialect = DIALECTS["vllm"]  # the names its /metrics was read with
    dialect_metrics: bool | None = None  # /metrics holds series of the dialect's prefix; None: it did not answer

    @property
    def block_size(self) -> int | None:
        """Tokens per KV cache block, where the engine stated it."""
        return (self.engine.get("cache") or {}).get("block_size")


async def _json(client: httpx.AsyncClient, url: str) -> Any:
    try:
        response = await client.get(url, timeout=10.0)
        return response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


# What /version may state beyond the engine's version: the identities of its machine and build (the
# simulator states them all; a wrapper may state some). Any other key is left out of the journal (the
# fingerprint still covers it).
_VERSION_IDENTITIES = ("model_path", "revision", "image", "host", "container_id", "gpu_uuids")


def _engine_identity(version: Any) -> dict[str, Any] | None:
    if not isinstance(version, dict):
        return None
    found: dict[str, Any] = {}
    for key in _VERSION_IDENTITIES:
        value = version.get(key)
        if key == "gpu_uuids" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            found[key] = value
        elif isinstance(value, str) and value:
            found[key] = value
    return found or None


def _setting(value: str | None, kind: type) -> Any:
    """A cache_config_info label as the setting it states (labels are text), or None when it is no such value."""
    if value is None:
        return None
    if kind is bool:
        return {"true": True, "false": False}.get(value.strip().lower())
    try:
        number = kind(value)
    except ValueError:
        return None
    return number if number >= 0 else None


_CACHE_SETTINGS: tuple[tuple[str, type], ...] = (
    ("block_size", int),
    ("cache_dtype", str),
    ("num_gpu_blocks", int),
    ("num_cpu_blocks", int),
    ("enable_prefix_caching", bool),
    ("gpu_memory_utilization", float),
)


def cache_settings(labels: dict[str, str]) -> dict[str, Any] | None:
    """The KV cache settings the contract publishes, read from the info metric's labels."""
    found = {}
    for name, kind in _CACHE_SETTINGS:
        value = labels.get(name) if kind is str else _setting(labels.get(name), kind)
        if value not in (None, "") and not (name == "block_size" and value == 0):
            found[name] = value
    return found or None


def _engine_info(version: Any, models: list[dict[str, Any]], cache: dict[str, str], engine: EngineProcess | None) -> dict[str, Any]:
    """The header's public ``engine`` fields (besides the KV capacity): version, simulator flag, pid, context, cache."""
    info: dict[str, Any] = {}
    if isinstance(version, dict) and isinstance(version.get("version"), str):
        info["version"] = version["version"]
    if isinstance(version, dict) and isinstance(version.get("simulated"), bool):
        info["simulated"] = version["simulated"]
    if engine is not None and engine.pgid:
        info["pid"] = engine.pgid
    lengths = [m.get("max_model_len") for m in models]
    if lengths and isinstance(lengths[0], int) and not isinstance(lengths[0], bool) and lengths[0] > 0:
        info["max_model_len"] = lengths[0]
    settings = cache_settings(cache)
    if settings:
        info["cache"] = settings
    return info


async def capture_identity(
    client: httpx.AsyncClient,
    base_url: str,
    dialect: Dialect,
    *,
    log_path: Path | None,
    engine: EngineProcess | None,
) -> tuple[Identity, Scrape | None]:
    """Read ``/v1/models``, ``/version`` and ``/metrics`` (in ``dialect``); the scrape is returned for reuse."""
    base = base_url.rstrip("/")
    models_doc, version, scraped = await asyncio.gather(
        _json(client, f"{base}/v1/models"), _json(client, f"{base}/version"), scrape(client, base, dialect)
    )
    listed = models_doc.get("data") if isinstance(models_doc, dict) else None  # any JSON may come back
    models = [m for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []
    model_parts = sorted(
        ({k: m.get(k) for k in ("id", "root", "parent", "max_model_len", "owned_by")} for m in models),
        key=lambda m: str(m["id"]),
    )
    cache_info = scraped.info.get(dialect.capacity_info or "", {}) if scraped else {}
    slots = kv_token_slots(scraped) or log_kv_slots(log_path, dialect)
    fingerprint = config_fingerprint({"models": model_parts, "version": version, "cache_config": cache_info})
    process_start = scraped.gauges().get("process_start_time_s") if scraped else None
    return Identity(
        private=_private(base, model_parts, version, fingerprint, engine),
        kv_token_slots=slots,
        fingerprint=fingerprint,
        process_start=process_start,
        models=[str(m["id"]) for m in model_parts],
        engine=_engine_info(version, model_parts, cache_info, engine),
        dialect=dialect,
        simulated=isinstance(version, dict) and version.get("simulated") is True,
        dialect_metrics=None if scraped is None else scraped.speaks(),
    ), scraped


def _private(base: str, models: list[dict[str, Any]], version: Any, fingerprint: str, engine: EngineProcess | None) -> dict[str, Any]:
    """The header's ``private``: identities only (docs/contract.md, HeaderPrivate), each a string."""
    served = [{k: m[k] for k in ("id", "root", "parent") if isinstance(m.get(k), str)} for m in models]
    private: dict[str, Any] = {"endpoint": base, "models": [m for m in served if m], "config_fingerprint": fingerprint, "host": socket.gethostname()}
    machine = _engine_identity(version)
    if machine:
        private["engine"] = machine
    if engine is not None:
        private["start_command"] = engine.command
    return private


def collector_info() -> dict[str, Any]:
    """The header's ``collector``: what ran the collector."""
    return {"python": sys.version.split()[0]}
