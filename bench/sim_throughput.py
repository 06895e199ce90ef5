"""How many concurrent streams and SSE chunks per second the simulator sustains on one core.

The simulator runs as ``evidence-kit sim`` in its own process pinned to one core (``taskset``,
when available) with a huge time scale, so the modelled engine never sleeps and the server's
own CPU is the only limit. The load generator runs in this process on another core and speaks
raw HTTP/1.1 over asyncio sockets (cheaper than any HTTP client library), counting ``data:``
events. Speculation is off so every decode step is one chunk per stream.

    .venv/bin/python bench/sim_throughput.py [--streams 1,16,64,128] [--tokens 400]

Prints one JSON line per concurrency, then a summary table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evidence_kit.engine_sim.profile import PROFILE_DIR  # noqa: E402


def bench_profile(folder: Path, max_seqs: int) -> Path:
    """The original profile with room for every stream, no speculation (one chunk per step) and no drift."""
    text = (PROFILE_DIR / "original.toml").read_text()
    for old, new in (
        ("max_num_seqs = 8", f"max_num_seqs = {max_seqs}"),
        ("budget_bytes = 167772160", f"budget_bytes = {167772160 * 32}"),
        ('method = "mtp"', 'method = "none"'),
        ("drift = 0.03", "drift = 0.0"),
    ):
        if old not in text:
            raise SystemExit(f"the original profile no longer says {old!r}; update bench_profile")
        text = text.replace(old, new)
    path = folder / "bench.toml"
    path.write_text(text)
    return path


def start_server(profile: Path, core: str | None, scale: float) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "evidence_kit", "sim", "--profile", str(profile), "--port", "0", "--time-scale", f"{scale:g}"]
    if core is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", core, *cmd]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    url = proc.stdout.readline().strip()
    return proc, url


async def one_stream(host: str, port: int, i: int, tokens: int) -> int:
    body = json.dumps({"messages": [{"role": "user", "content": f"bench {i}"}], "stream": True, "max_tokens": tokens, "ignore_eos": True}).encode()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    await writer.drain()
    events, tail = 0, b""
    while data := await reader.read(65536):
        events += (tail + data).count(b"data: ")
        tail = data[-5:]
    writer.close()
    return events


async def run_level(url: str, streams: int, tokens: int) -> dict:
    host, port = url.removeprefix("http://").split(":")
    start = time.perf_counter()
    cpu0 = time.process_time()
    counts = await asyncio.gather(*(one_stream(host, int(port), i, tokens) for i in range(streams)))
    seconds = time.perf_counter() - start
    chunks = sum(counts)
    return {
        "streams": streams,
        "tokens_per_stream": tokens,
        "seconds": round(seconds, 3),
        "events": chunks,
        "chunks_per_s": round(chunks / seconds),
        "tokens_per_s": round(streams * tokens / seconds),
        "client_cpu_share": round((time.process_time() - cpu0) / seconds, 2),
        "complete": all(c == tokens + 2 for c in counts),
    }  # role chunk + one per token + [DONE]


def modelled_seconds(streams: int, tokens: int, scale: float) -> float:
    """What the modelled engine should take for one level (all streams admitted in one step)."""
    from evidence_kit.engine_sim.profile import load_profile

    timing = load_profile("original").timing
    prompt = 16  # "bench N" in the chat template, about this many tokens each
    prefill = timing.prefill_base_s + timing.prefill_per_token_s * prompt * streams
    step = timing.decode_base_s + timing.decode_per_seq_s * streams
    return (prefill + tokens * step) / scale


def measure(profile: Path, core: str | None, scale: float, levels: list[int], tokens: int) -> list[dict]:
    proc, url = start_server(profile, core, scale)
    try:
        import httpx

        for _ in range(100):
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        asyncio.run(run_level(url, 4, 50))  # warm-up
        return [asyncio.run(run_level(url, n, tokens)) for n in levels]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", default="1,16,64,128")
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--fidelity-scale", type=float, default=20.0, help="also run at this time scale and compare wall time with the modelled time")
    args = parser.parse_args()
    levels = [int(s) for s in args.streams.split(",")]
    cpus = sorted(os.sched_getaffinity(0))
    server_core = str(cpus[0]) if len(cpus) > 1 else None
    if len(cpus) > 1:
        os.sched_setaffinity(0, {cpus[1]})
    with tempfile.TemporaryDirectory() as tmp:
        profile = bench_profile(Path(tmp), max(levels))
        results = measure(profile, server_core, 1e6, levels, args.tokens)
        fidelity = measure(profile, server_core, args.fidelity_scale, levels, args.tokens)
    for result, timed in zip(results, fidelity):
        timed["modelled_seconds"] = round(modelled_seconds(timed["streams"], args.tokens, args.fidelity_scale), 3)
        timed["wall_over_modelled"] = round(timed["seconds"] / timed["modelled_seconds"], 3)
        print(json.dumps({**result, "time_scale": 1e6, "server_core": server_core, "python": sys.version.split()[0]}))
        print(json.dumps({**timed, "time_scale": args.fidelity_scale}))
    print(f"\n| concurrent streams | max chunks/s (one core) | all complete | wall ÷ modelled at {args.fidelity_scale:g}x |")
    print("|---|---|---|---|")
    for r, t in zip(results, fidelity):
        ok = "yes" if r["complete"] and t["complete"] else "NO"
        print(f"| {r['streams']} | {r['chunks_per_s']:,} | {ok} | {t['wall_over_modelled']:.3f} |")


if __name__ == "__main__":
    main()
