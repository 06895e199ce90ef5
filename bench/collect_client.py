"""Benchmark the collector's streaming client against the simulator's ground-truth log.

Measures, at concurrency 1, 4, 64 and 256 (one closed-loop wave of 2 x C requests, at most 256):
- client CPU time per streamed token (process CPU of this process, which runs only the client;
  the simulator runs in its own process);
- TTFT error: client TTFT (send -> first token read) minus the server's TTFT (arrival -> first
  delta sent), and E2E error likewise (send -> end of stream vs arrival -> [DONE] sent); both
  clocks are the machine's CLOCK_MONOTONIC, so the difference is the client's own overhead plus
  loopback transport;
- start-up: from launching ``evidence-kit collect`` to the simulator receiving its first request;
- baseline: the same wave sent by a minimal raw-socket client (asyncio streams, one connection
  per request, no HTTP library), timed the same way in the same run, so the collector's TTFT
  error can be read against what any client on this machine and server sees.

The collector's waves go out as its runs do (``--client lanes``: its own client, every lane's connection
opened before the wave); ``--client pooled`` sends them through one plain ``httpx.AsyncClient`` pool, as
this benchmark did before 2026-12-04.

Usage: .venv/bin/python bench/collect_client.py [--levels 1,4,64,256] [--time-scale 4] [--client lanes|pooled]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evidence_kit.collect.connections import arm_client, open_connections  # noqa: E402
from evidence_kit.collect.runs import send_all  # noqa: E402
from evidence_kit.engine_sim.profile import load_profile  # noqa: E402
from evidence_kit.engine_sim.server import simulator_process  # noqa: E402

MODEL = "sim-org/sim-model-7b-simulated"


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * q // 100) - 1)] if ordered else float("nan")


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def bench_profile(folder: Path) -> Path:
    """The original profile with room for 256 sequences at once (so the wave is not queued)."""
    data = load_profile("original").model_dump()
    data["scheduler"]["max_num_seqs"] = 256
    data["kv_cache"]["budget_bytes"] *= 64
    lines = [f"{k} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for section, body in data.items():
        if isinstance(body, dict):
            lines.append(f"[{section}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in body.items() if v is not None]
    path = folder / "bench-profile.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


CLIENT = ["lanes"]


async def wave(url: str, concurrency: int, tag: str) -> tuple[list, float]:
    count = min(2 * concurrency, 256)
    bodies = [
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": f"Summarise note {tag}-{i}."}],
            "max_tokens": 128,
            "ignore_eos": True,
            "temperature": 0,
            "seed": i,
            "request_id": f"{tag}-{i}",
        }
        for i in range(count)
    ]
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with arm_client(300) if CLIENT[0] == "lanes" else httpx.AsyncClient(limits=limits) as client:
        if CLIENT[0] == "lanes":
            await open_connections(client, url, concurrency)
        cpu0 = time.process_time()
        outcomes = await send_all(client, f"{url}/v1/chat/completions", bodies, concurrency=concurrency, clock=time.monotonic, timeout=300)
        cpu = time.process_time() - cpu0
    return list(zip(bodies, outcomes)), cpu


class RawOutcome:
    """What the baseline client saw of one request, on the same clock as the collector."""

    def __init__(self) -> None:
        self.t_send = self.t_first = self.t_end = 0.0
        self.completion_tokens = 0


async def raw_request(host: str, port: int, body: dict) -> RawOutcome:
    """One streamed request over a bare socket: write, then timestamp the first content event."""
    out = RawOutcome()
    payload = json.dumps({**body, "stream": True, "stream_options": {"include_usage": True}}).encode()
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection(host, port)
    out.t_send = time.monotonic()
    writer.write(head + payload)
    await writer.drain()
    pending = b""
    while True:
        data = await reader.read(65536)
        now = time.monotonic()
        if not data:
            break
        out.t_end = now
        pending += data
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if not line.startswith(b"data: {"):
                continue
            try:
                event = json.loads(line[6:])
            except ValueError:
                continue
            if event.get("usage"):
                out.completion_tokens = event["usage"].get("completion_tokens", 0)
            for choice in event.get("choices") or []:
                delta = choice.get("delta") or {}
                if not out.t_first and (delta.get("content") or delta.get("reasoning") or delta.get("reasoning_content")):
                    out.t_first = now
    writer.close()
    return out


async def raw_wave(url: str, concurrency: int, tag: str) -> tuple[list, float]:
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    count = min(2 * concurrency, 256)
    bodies = [
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": f"Summarise note {tag}-{i}."}],
            "max_tokens": 128,
            "ignore_eos": True,
            "temperature": 0,
            "seed": i,
            "request_id": f"{tag}-{i}",
        }
        for i in range(count)
    ]
    gate = asyncio.Semaphore(concurrency)

    async def one(body: dict) -> RawOutcome:
        async with gate:
            return await raw_request(host, int(port), body)

    cpu0 = time.process_time()
    outcomes = await asyncio.gather(*(one(b) for b in bodies))
    return list(zip(bodies, outcomes)), time.process_time() - cpu0


def level(url: str, truth: Path, concurrency: int, *, baseline: bool = False) -> dict:
    tag = f"{'raw' if baseline else 'c'}{concurrency}"
    pairs, cpu = asyncio.run((raw_wave if baseline else wave)(url, concurrency, tag))
    time.sleep(0.3)  # the server writes a request's ground truth when it ends
    server = {}
    for line in truth.read_text().splitlines():
        record = json.loads(line)
        if record["id"].split("-")[-2:-1] == [tag] or record["id"].startswith(f"{tag}-"):
            server[record["id"]] = record
    ttft_err, e2e_err, send_lag, read_lag, tokens = [], [], [], [], 0
    for body, out in pairs:
        record = next(v for k, v in server.items() if k.endswith(body["request_id"]))
        first = next(e[0] for e in record["events"] if e[1] == "delta")
        done = next(e[0] for e in record["events"] if e[1] == "done")
        send_lag.append((record["arrival"] - out.t_send) * 1000)
        read_lag.append((out.t_first - first) * 1000)
        ttft_err.append(((out.t_first - out.t_send) - (first - record["arrival"])) * 1000)
        e2e_err.append(((out.t_end - out.t_send) - (done - record["arrival"])) * 1000)
        tokens += out.completion_tokens or 0
    return {
        "concurrency": concurrency,
        "requests": len(pairs),
        "tokens": tokens,
        "cpu_ms_per_token": cpu * 1000 / tokens,
        "ttft_err_ms_p50": statistics.median(ttft_err),
        "ttft_err_ms_p99": nearest_rank(ttft_err, 99),
        "e2e_err_ms_p50": statistics.median(e2e_err),
        "e2e_err_ms_p99": nearest_rank(e2e_err, 99),
        "send_lag_ms_p50": statistics.median(send_lag),
        "send_lag_ms_p99": nearest_rank(send_lag, 99),
        "read_lag_ms_p50": statistics.median(read_lag),
        "read_lag_ms_p99": nearest_rank(read_lag, 99),
    }


def startup(url: str, truth: Path, folder: Path) -> float:
    """Seconds from launching ``evidence-kit collect`` to the first request reaching the engine."""
    plan = folder / "startup.toml"
    plan.write_text(f'''trial_id = "startup"
title = "start-up"
engine_kind = "simulated"
sequence = ["a", "b", "a"]
[decision_rule]
min_improvement = 0.1
[workload]
input_nominal = [64]
concurrency = [1]
repetitions = 1
requests_per_run = 1
max_tokens = 8
warmup_requests = 0
[gates]
run = []
[arms.a]
base_url = "{url}"
model = "{MODEL}"
[arms.b]
base_url = "{url}"
model = "{MODEL}"
''')
    seen = len(truth.read_text().splitlines())
    t0 = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(folder / "raw"), "-q"], check=True, stdout=subprocess.DEVNULL
    )
    first = json.loads(truth.read_text().splitlines()[seen])  # calibration's first tokenize is not logged
    return first["arrival"] - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default="1,4,64,256")
    parser.add_argument("--time-scale", type=float, default=4.0)
    parser.add_argument("--client", choices=("lanes", "pooled"), default="lanes")
    args = parser.parse_args()
    CLIENT[0] = args.client
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        truth = folder / "truth.jsonl"
        profile = bench_profile(folder)
        with simulator_process(str(profile), time_scale=args.time_scale, extra=["--ground-truth", str(truth)]) as url:
            asyncio.run(wave(url, 4, "warm"))
            rows, raw_rows = [], []
            for c in args.levels.split(","):  # interleaved, so both clients meet the same machine
                rows.append(level(url, truth, int(c)))
                raw_rows.append(level(url, truth, int(c), baseline=True))
            start = startup(url, truth, folder)
    print(
        "| C | requests | tokens | client CPU ms/token | TTFT err p50 / p99 ms | E2E err p50 / p99 ms "
        "| send lag p50 / p99 ms | first-token read lag p50 / p99 ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['concurrency']} | {r['requests']} | {r['tokens']} | {r['cpu_ms_per_token']:.4f} | "
            f"{r['ttft_err_ms_p50']:.2f} / {r['ttft_err_ms_p99']:.2f} | "
            f"{r['e2e_err_ms_p50']:.2f} / {r['e2e_err_ms_p99']:.2f} | "
            f"{r['send_lag_ms_p50']:.2f} / {r['send_lag_ms_p99']:.2f} | "
            f"{r['read_lag_ms_p50']:.2f} / {r['read_lag_ms_p99']:.2f} |"
        )
    print("\nBaseline (minimal raw-socket client, same run) and the collector's TTFT error against it:\n")
    print(
        "| C | baseline TTFT err p50 / p99 ms | baseline send lag p50 / p99 ms | baseline read lag p50 / p99 ms "
        "| collector / baseline TTFT err p50, p99 |"
    )
    print("|---|---|---|---|---|")
    for r, b in zip(rows, raw_rows):
        print(
            f"| {r['concurrency']} | {b['ttft_err_ms_p50']:.2f} / {b['ttft_err_ms_p99']:.2f} | "
            f"{b['send_lag_ms_p50']:.2f} / {b['send_lag_ms_p99']:.2f} | "
            f"{b['read_lag_ms_p50']:.2f} / {b['read_lag_ms_p99']:.2f} | "
            f"{r['ttft_err_ms_p50'] / b['ttft_err_ms_p50']:.2f}, {r['ttft_err_ms_p99'] / b['ttft_err_ms_p99']:.2f} |"
        )
    print(f"\nstart-up, launch of `evidence-kit collect` to first request at the engine: {start:.3f} s")


if __name__ == "__main__":
    main()
