"""A real local Ray head on loopback for the tests: ``ray start --head`` in its own session, ended by session.

``ray stop`` ends every Ray process of the machine, another session's too, so the head is started
in a session of its own (``start_new_session``: every process it starts, the raylet's workers
included, keeps that session id) and ended by signalling exactly the processes of that session.
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

__all__ = ["RayHead", "ray_head", "session_processes"]

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def session_processes(sid: int) -> dict[int, str]:
    """The live processes of session ``sid``: pid -> command name (read from /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            comm, rest = (entry / "stat").read_text().rsplit(")", 1)
            fields = rest.split()
            if fields[0] != "Z" and int(fields[3]) == sid:
                found[int(entry.name)] = comm.split("(", 1)[1]
    return found


class RayHead:
    """A started head: its address and the session that holds its processes."""

    def __init__(self, address: str, sid: int, temp_dir: Path):
        self.address, self.sid, self.temp_dir = address, sid, temp_dir

    def actors(self) -> list[int]:
        """Pids of the live evidence-kit worker actors of this head."""
        return [pid for pid, comm in session_processes(self.sid).items() if comm.startswith("ray::WorkerAct")]  # comm: 15 bytes

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in session_processes(self.sid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + (3 if sig == signal.SIGTERM else 10)
            while session_processes(self.sid) and time.monotonic() < deadline:
                time.sleep(0.1)


@contextlib.contextmanager
def ray_head(cpus: int = 2) -> Iterator[RayHead]:
    """Start a head on 127.0.0.1 (workers import this tree's evidence_kit), yield it, end it."""
    port = _free_port()
    # Short: Ray's sockets live under it, and a Unix socket path is at most 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="ekray", dir="/tmp"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
           "RAY_USAGE_STATS_ENABLED": "0"}
    ray = str(Path(sys.executable).with_name("ray"))
    starter = subprocess.Popen(
        [ray, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", str(cpus),
         "--include-dashboard=false", "--disable-usage-stats", "--temp-dir", str(temp_dir)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    head = RayHead(f"127.0.0.1:{port}", starter.pid, temp_dir)
    try:
        out, _ = starter.communicate(timeout=120)
        if starter.returncode != 0:
            raise RuntimeError(f"ray start failed ({starter.returncode}): {out[-2000:]}")
        yield head
    finally:
        head.stop()
