"""A concurrency above the collector's open-file limit: every lane keeps its connection open (that is the
point of lanes), so the warm-up and the run take every descriptor; the requests beyond it fail as
"transport: ConnectError: All connection attempts failed" (EMFILE, unnamed) and the journal's own commit
(os.open) then fails with EMFILE: the collector dies with a traceback instead of an exit code.

The soft limit is 1024 on most Linux installs, and concurrency 1024 is an ordinary load level.

Expected: collect refuses the plan up front (exit 2, one line naming `concurrency` and the limit: the
lanes need max(concurrency) + the shared pool + the journal's and telemetry's files), or raises its soft
limit to what the plan needs; never a traceback, never failed requests the engine never saw."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.collect.conftest import write_plan

MODEL = "sim-org/sim-model-7b-simulated"


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_NOFILE")
def test_concurrency_above_the_file_limit_is_refused_not_a_traceback(tmp_path: Path) -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    # The engine in its own process, with the ordinary limit: only the collector is short of descriptors.
    sim = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "sim", "--port", str(port), "--time-scale", "50"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(url + "/health").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        arm = {"base_url": url, "model": MODEL, "keep_serving": True}
        plan = write_plan(
            tmp_path / "plan.toml",
            arms={"original": arm, "layout": dict(arm)},
            workload={"concurrency": [300], "requests_per_run": 300, "repetitions": 1, "max_tokens": 4, "warmup_requests": 0},
        )

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))

        result = subprocess.run(
            [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(tmp_path / "raw"), "--quiet"],
            capture_output=True,
            text=True,
            timeout=300,
            preexec_fn=limit,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    assert "Traceback" not in result.stderr, result.stderr[-1500:]
    assert result.returncode == 2 and "concurrency" in result.stderr, (result.returncode, result.stdout[-800:], result.stderr[-800:])
