"""Since 3ff0e14 every request of an arm goes through ``arm_client``, an ``httpx.AsyncClient`` given an explicit
``transport=``; httpx then ignores HTTP_PROXY / HTTPS_PROXY / ALL_PROXY / NO_PROXY (``trust_env`` proxies apply
only without a transport). The collector before it (``httpx.AsyncClient(limits=...)``) honoured them. An
operator whose engine is reachable only through a proxy now gets connect failures at readiness with no word
about the proxy; docs/ say nothing either way.

Expected: the proxy environment is honoured as before (mount the lane transport per proxy), or collect says
in one line that it ignores it."""

from __future__ import annotations

import asyncio
import socket
import threading

import httpx

from evidence_kit.collect.connections import arm_client


def _recording_proxy() -> tuple[str, list[bytes]]:
    sock = socket.create_server(("127.0.0.1", 0))
    seen: list[bytes] = []

    def serve() -> None:
        while True:
            conn, _ = sock.accept()
            with conn:
                seen.append(conn.recv(65536))
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}", seen


def test_the_arm_client_goes_through_the_proxy_the_environment_names(monkeypatch) -> None:
    proxy, seen = _recording_proxy()
    monkeypatch.setenv("HTTP_PROXY", proxy)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    target = "http://engine.invalid:8000/health"  # resolvable only by the proxy

    async def get(client: httpx.AsyncClient) -> int | str:
        async with client:
            try:
                return (await client.get(target, timeout=5)).status_code
            except httpx.HTTPError as err:
                return type(err).__name__

    assert asyncio.run(get(httpx.AsyncClient())) == 200 and seen  # what the collector did before 3ff0e14
    seen.clear()
    assert asyncio.run(get(arm_client(5))) == 200 and seen, "arm_client bypassed HTTP_PROXY"
