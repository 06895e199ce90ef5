"""`evidence-kit sim` as a user starts it: a subprocess that prints its URL and serves."""

from __future__ import annotations

import subprocess
import sys

import httpx

from evidence_kit.engine_sim import simulator_process

from .conftest import chat_body


def test_sim_subprocess_prints_url_logs_pool_and_serves(tmp_path):
    log = (tmp_path / "sim.log").open("w")
    extra = [
        "--identity",
        "served_model_name=canary/sub-5e1f",
        "--identity",
        "gpu_uuids=GPU-canary-1,GPU-canary-2",
        "--ground-truth",
        str(tmp_path / "truth.jsonl"),
    ]
    with simulator_process("layout-candidate", time_scale=50, extra=extra, log=log) as url:
        assert url.startswith("http://127.0.0.1:")
        assert httpx.get(url + "/v1/models").json()["data"][0]["id"] == "canary/sub-5e1f"
        reply = httpx.post(url + "/v1/chat/completions", json=chat_body(model="canary/sub-5e1f", max_tokens=8), timeout=30)
        assert reply.status_code == 200 and reply.json()["usage"]["completion_tokens"] <= 8
    log.close()
    text = (tmp_path / "sim.log").read_text()
    assert "GPU KV cache size: 28,384 tokens" in text and "# GPU blocks: 1774" in text
    assert "canary/sub-5e1f" in text and "GPU-canary-2" in text and "SIMULATED" in text
    assert (tmp_path / "truth.jsonl").read_text().count("\n") == 1


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evidence_kit", "sim", *args], capture_output=True, text=True, timeout=60)


def test_bad_profile_file_exits_2_with_one_located_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n\n[kv_cache]\nbudget_bytes = -5\nbytes_per_token = 8192\n')
    result = _run("--profile", str(bad), "--port", "0")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and f"{bad}:4:" in result.stderr and "budget_bytes" in result.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    result = _run("--profile", str(broken))
    assert result.returncode == 2 and result.stderr.startswith(f"evidence-kit: {broken}:1: not valid TOML")


def test_profile_whose_pool_cannot_hold_one_full_request_is_refused(tmp_path):
    small = tmp_path / "small.toml"
    small.write_text('name = "small"\n[scheduler]\nmax_model_len = 4096\n[kv_cache]\nbudget_bytes = 8192000\nbytes_per_token = 8192\n')
    result = _run("--profile", str(small))
    assert result.returncode == 2 and "KV pool holds 992 tokens" in result.stderr and result.stderr.count("\n") == 1


def test_unknown_profile_name_and_bad_fault_exit_2():
    result = _run("--profile", "fastest")
    assert result.returncode == 2 and "unknown profile 'fastest'" in result.stderr and result.stderr.count("\n") == 1
    result = _run("--fault", "meteor=0.5")
    assert result.returncode == 2 and "meteor" in result.stderr and result.stderr.count("\n") == 1
    for scale in ("nan", "inf"):  # NaN passed the range check and ran a simulator "nanx faster"
        result = _run("--time-scale", scale)
        assert result.returncode == 2 and "not a finite number" in result.stderr, result.stderr


def test_listening_socket_is_tcp_so_chunks_are_not_held_by_nagle():
    # asyncio turns on TCP_NODELAY only for sockets whose proto is TCP; a proto-0 socket made
    # every keep-alive SSE stream arrive ~40 ms late, all at once.
    import socket

    from evidence_kit.engine_sim.server import _bind

    sock = _bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
