"""A real local Ray head on loopback for the tests: ``ray start --head`` in its own session, ended by session.

``ray stop`` ends every Ray process of the machine, another session's too, so the head is started
in a session of its own (``start_new_session``: every process it starts, the raylet's workers
included, keeps that session id) and ended by signalling exactly the processes of that session.
With ``own_session=False`` (the benchmark: Linux's autogroup scheduler shares the CPU between
sessions, so actors in a session of their own would get a share the local worker processes they
are compared with do not) it is started in a process group of its own in the caller's session,
and ended by that group and the processes its members started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["RayHead", "ray_head", "session_processes", "group_processes"]

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _processes() -> dict[int, tuple[str, int, int, int]]:
    """Every live process: pid -> (command name, parent, process group, session), read from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            comm, rest = (entry / "stat").read_text().rsplit(")", 1)
            fields = rest.split()
            if fields[0] != "Z":
                found[int(entry.name)] = (comm.split("(", 1)[1], int(fields[1]), int(fields[2]), int(fields[3]))
    return found


def session_processes(sid: int) -> dict[int, str]:
    """The live processes of session ``sid``: pid -> command name."""
    return {pid: comm for pid, (comm, _, _, session) in _processes().items() if session == sid}


def group_processes(pgid: int) -> dict[int, str]:
    """The live processes of process group ``pgid`` and every process they started: pid -> command name."""
    every = _processes()
    found = {pid: comm for pid, (comm, _, group, _) in every.items() if group == pgid}
    grown = True
    while grown:
        more = {pid: comm for pid, (comm, parent, _, _) in every.items() if parent in found and pid not in found}
        found.update(more)
        grown = bool(more)
    return found


class RayHead:
    """A started head: its address and the session (or process group) that holds its processes."""

    def __init__(self, address: str, leader: int, temp_dir: Path, own_session: bool = True):
        self.address, self.leader, self.temp_dir, self.own_session = address, leader, temp_dir, own_session

    def processes(self) -> dict[int, str]:
        return session_processes(self.leader) if self.own_session else group_processes(self.leader)

    def actors(self) -> list[int]:
        """Pids of the live evidence-kit worker actors of this head."""
        return [pid for pid, comm in self.processes().items() if comm.startswith("ray::WorkerAct")]  # comm: 15 bytes

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self.processes():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + (3 if sig == signal.SIGTERM else 10)
            while self.processes() and time.monotonic() < deadline:
                time.sleep(0.1)


@contextlib.contextmanager
def ray_head(cpus: int = 2, own_session: bool = True) -> Iterator[RayHead]:
    """Start a head on 127.0.0.1 (workers import this tree's evidence_kit), yield it, end it."""
    port = _free_port()
    # Short: Ray's sockets live under it, and a Unix socket path is at most 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="ekray", dir="/tmp"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p), "RAY_USAGE_STATS_ENABLED": "0"}
    ray = str(Path(sys.executable).with_name("ray"))
    starter = subprocess.Popen(
        [
            ray,
            "start",
            "--head",
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            str(port),
            "--num-cpus",
            str(cpus),
            "--include-dashboard=false",
            "--disable-usage-stats",
            "--temp-dir",
            str(temp_dir),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **({"start_new_session": True} if own_session else {"process_group": 0}),
    )
    head = RayHead(f"127.0.0.1:{port}", starter.pid, temp_dir, own_session)
    try:
        out, _ = starter.communicate(timeout=120)
        if starter.returncode != 0:
            raise RuntimeError(f"ray start failed ({starter.returncode}): {out[-2000:]}")
        yield head
    finally:
        head.stop()
