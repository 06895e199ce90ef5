"""Redaction throughput against plain parse + re-serialise of the same files, in one run.

Generates a raw trial of about ``--size-mb`` megabytes (journals ~85%, telemetry
keyed by GPU UUID ~12%, engine logs ~3%, fabricated identities throughout), then:

- baseline: every JSON/JSONL record parsed with ``json.loads`` and written back
  with ``json.dumps``; text copied line by line;
- redact: ``redact_bundle`` (harvest, rewrite, receipt, manifest, leak scan).

Prints wall and CPU (process) time, the ratio (goal: within 2x) and MB/s. CPU
time is the one-core cost and is what to compare on a shared, loaded machine.
Everything runs in one process on one core. The generated files are deleted
afterwards.

    .venv/bin/python bench/redact_throughput.py                  # ~1 GB (the recorded run)
    .venv/bin/python bench/redact_throughput.py --size-mb 20     # quick check
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from evidence_kit.redact import redact_bundle

GPUS = [f"GPU-{i:08x}-4f5a-6b7c-8d9e-0f1a2b3c4d5e" for i in range(0x5B1C2D30, 0x5B1C2D38)]
PRIVATE = {
    "model": "acme-labs/falcon-secret-70b",
    "served_model_name": "falcon-prod-internal",
    "revision": "3f9c2a7d4e1b8c6a0f5d2e9b7a4c1d8e6f3a2b5c",
    "endpoint": "http://gpu-node-17.lab.acme-corp.internal:8123/v1",
    "image": "registry.acme-corp.internal:5000/inference/vllm-fork:v0.11.1-acme3",
    "gpu_uuids": GPUS,
    "host": "gpu-node-17.lab.acme-corp.internal",
    "container_id": "9d4c7e2a1b3f5d6e8a0c2b4d6f8e0a1c3b5d7f9e1a2c4b6d8f0e2a4c6b8d0f1e",
}


def _write_until(path: Path, first: str, make_line, budget: int, rng: random.Random) -> None:
    with path.open("w") as handle:
        handle.write(first)
        written = len(first)
        index = 0
        while written < budget:
            line = make_line(index, rng)
            handle.write(line)
            written += len(line)
            index += 1


def _request(index: int, rng: random.Random) -> str:
    e2e = rng.uniform(0.5, 12.0)
    return (
        json.dumps(
            {
                "type": "request",
                "run": f"r{index % 3 + 1}-8192-c4",
                "repetition": index % 3 + 1,
                "input_nominal": 8192,
                "concurrency": 4,
                "index": index % 4,
                "warmup": False,
                "ok": True,
                "error": None,
                "prompt_tokens": 6066 + index % 3,
                "completion_tokens": rng.randint(200, 4096),
                "e2e_s": round(e2e, 6),
                "ttft_s": round(e2e / 9, 6),
                "ttft_content_s": round(e2e / 3, 6),
                "finish_reason": "stop",
            }
        )
        + "\n"
    )


def _telemetry(index: int, rng: random.Random) -> str:
    gpus = {
        gpu: {"util": rng.randint(0, 100), "mem_used_mib": rng.randint(1000, 97000), "power_w": round(rng.uniform(80, 300), 1)} for gpu in GPUS[:2]
    }
    return json.dumps({"t": round(index * 0.25, 3), "gpus": gpus}) + "\n"


def _log(index: int, rng: random.Random) -> str:
    kinds = (
        f"INFO 11-01 09:{index % 60:02d}:{index % 59:02d} engine.py:{index % 900}] Avg prompt throughput: {rng.uniform(1, 9e4):.1f} tokens/s, Running: {index % 5} reqs, GPU KV cache usage: {rng.uniform(0, 100):.1f}%\n",
        f'INFO 11-01 09:{index % 60:02d}:{index % 59:02d} api_server.py:102] 10.20.30.{index % 250}:5{index % 9999:04d} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n',
        f"DEBUG 11-01 09:{index % 60:02d}:{index % 59:02d} worker.py:55] gpu-node-17 {GPUS[index % 2]} step {index} took {rng.uniform(0, 50):.3f} ms\n",
    )
    return kinds[index % 3]


def generate(root: Path, size_mb: float, seed: int = 7) -> int:
    """Write the raw trial; return its size in bytes."""
    rng = random.Random(seed)
    budget = int(size_mb * 1_000_000)
    (root / "journals").mkdir(parents=True)
    (root / "telemetry").mkdir()
    (root / "logs").mkdir()
    (root / "trial.json").write_text(
        json.dumps({"schema": "evidence-kit/trial/v1", "trial_id": "bench", "private": {"operator": "ops@acme-corp.com"}}, indent=2) + "\n"
    )
    for seq, (arm, phase) in enumerate((("original", "before"), ("candidate", "candidate"), ("original", "restored")), start=1):
        header = (
            json.dumps(
                {
                    "type": "header",
                    "schema": "evidence-kit/journal/v1",
                    "trial_id": "bench",
                    "arm": arm,
                    "phase": phase,
                    "seq": seq,
                    "started_at": "2026-11-01T09:00:00Z",
                    "engine": {"kv_token_slots": 1330579},
                    "private": PRIVATE,
                }
            )
            + "\n"
        )
        _write_until(root / "journals" / f"{seq:02d}-{arm}-{phase}.jsonl", header, _request, int(budget * 0.85 / 3), rng)
    _write_until(root / "telemetry" / "gpus.jsonl", "", _telemetry, int(budget * 0.12), rng)
    _write_until(root / "logs" / "gpu-node-17-engine.log", "", _log, int(budget * 0.03), rng)
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def baseline(raw: Path, out: Path) -> None:
    """Parse and re-serialise every JSON record; copy text line by line."""
    for path in sorted(p for p in raw.rglob("*") if p.is_file()):
        target = out / path.relative_to(raw)
        target.parent.mkdir(parents=True, exist_ok=True)
        with path.open() as src, target.open("w") as dst:
            if path.suffix == ".jsonl":
                for line in src:
                    dst.write(json.dumps(json.loads(line)) + "\n")
            elif path.suffix == ".json":
                dst.write(json.dumps(json.loads(src.read()), indent=2) + "\n")
            else:
                for line in src:
                    dst.write(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=1000.0, help="size of the generated raw trial (default 1000)")
    parser.add_argument("--workdir", type=Path, default=None, help="where to generate (default: a temporary folder)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="redact-bench-", dir=args.workdir))
    try:
        raw = work / "raw"
        started = time.perf_counter()
        size = generate(raw, args.size_mb)
        generated = time.perf_counter() - started
        started, cpu = time.perf_counter(), time.process_time()
        baseline(raw, work / "baseline")
        base, base_cpu = time.perf_counter() - started, time.process_time() - cpu
        shutil.rmtree(work / "baseline")
        started, cpu = time.perf_counter(), time.process_time()
        result = redact_bundle(raw, work / "bundle", key=b"benchmark-key-0123456789abcdef")
        redacted, redacted_cpu = time.perf_counter() - started, time.process_time() - cpu
        if not result.publishable:
            print(f"leak scan findings: {len(result.findings)}", file=sys.stderr)
            return 1
        mb = size / 1_000_000
        replaced = sum(sum(c.values()) for c in result.counts.values())
        print(f"raw size            {mb:10.1f} MB (generated in {generated:.1f} s)")
        print(f"baseline parse+dump {base:10.2f} s wall {base_cpu:8.2f} s cpu  {mb / base_cpu:8.1f} MB/s cpu")
        print(
            f"redact (all stages) {redacted:10.2f} s wall {redacted_cpu:8.2f} s cpu  {mb / redacted_cpu:8.1f} MB/s cpu"
            f"  ({replaced} replacements, scan clean)"
        )
        print(f"ratio redact/base   {redacted / base:10.2f}x wall {redacted_cpu / base_cpu:6.2f}x cpu  (goal: within 2x)")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
