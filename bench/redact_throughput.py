"""Redaction throughput against plain parse + re-serialise of the same files, in one run.

Generates a raw trial of about ``--size-mb`` megabytes that follows the contract (journals ~85%:
headers with their private identities, requests, run records, footers; telemetry samples ~12%;
engine logs ~3%, which the redactor withholds), then:

- baseline: every JSON/JSONL record parsed with ``json.loads`` and written back with
  ``json.dumps``; text copied line by line;
- redact: ``redact_bundle`` (every contract file read through the models and written from the
  records, the raw text withheld and hashed, receipt, manifest, the known-value scan).

Prints wall and CPU (process) time, the ratio (goal: at most 1.2x) and MB/s. CPU time is the
one-core cost and is what to compare on a shared, loaded machine. Everything runs in one process
on one core. The generated files are deleted afterwards.

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
    "model": "falcon-prod-internal",
    "models": [{"id": "falcon-prod-internal", "root": "/data/models/acme-labs/falcon-secret-70b"}],
    "endpoint": "http://gpu-node-17.lab.acme-corp.internal:8123/v1",
    "host": "gpu-node-17.lab.acme-corp.internal",
    "config_fingerprint": "sha256:3f9c2a7d4e1b8c6a0f5d2e9b7a4c1d8e6f3a2b5c3f9c2a7d4e1b8c6a0f5d2e9b",
    "start_command": "vllm serve /data/models/acme-labs/falcon-secret-70b --port 8123",
    "engine": {
        "image": "registry.acme-corp.internal:5000/inference/vllm-fork:v0.11.1-acme3",
        "container_id": "9d4c7e2a1b3f5d6e8a0c2b4d6f8e0a1c3b5d7f9e1a2c4b6d8f0e2a4c6b8d0f1e",
        "gpu_uuids": GPUS[:2],
    },
}
PER_RUN = 1000
ARMS = (("original", "before"), ("candidate", "candidate"), ("original", "restored"))


def _request(run: str, rep: int, index: int, rng: random.Random) -> str:
    e2e = rng.uniform(0.5, 12.0)
    ok = index % 500 != 7
    record = {
        "type": "request",
        "run": run,
        "repetition": rep,
        "input_nominal": 8192,
        "concurrency": 4,
        "index": index,
        "warmup": False,
        "ok": ok,
        "error": None if ok else "http 500: engine error on gpu-node-17.lab.acme-corp.internal",
        "http_status": 200 if ok else 500,
        "prompt_tokens": 6066 + index % 3,
        "completion_tokens": rng.randint(200, 4096),
        "e2e_s": round(e2e, 6) if ok else None,
        "ttft_s": round(e2e / 9, 6),
        "ttft_content_s": round(e2e / 3, 6),
        "finish_reason": "stop" if ok else None,
        "key": f"{run}/{index}",
    }
    return json.dumps(record) + "\n"


def _journal(path: Path, seq: int, arm: str, phase: str, budget: int, rng: random.Random) -> int:
    """Write one arm's journal of about ``budget`` bytes; its repetitions."""
    header = {
        "type": "header",
        "schema": "evidence-kit/journal/v1",
        "trial_id": "bench",
        "arm": arm,
        "phase": phase,
        "seq": seq,
        "started_at": "2026-11-01T09:00:00Z",
        "engine": {"kv_token_slots": 1330579, "version": "0.11.1", "cache": {"block_size": 16, "cache_dtype": "auto"}},
        "private": PRIVATE,
    }
    written = rep = requests = 0
    with path.open("w") as handle:
        written += handle.write(json.dumps(header) + "\n")
        while written < budget:
            rep += 1
            run, ok = f"r{rep}-8192-c4", 0
            for index in range(PER_RUN):
                line = _request(run, rep, index, rng)
                ok += '"ok": true' in line
                written += handle.write(line)
            requests += PER_RUN
            run_record = {"type": "run", "run": run, "repetition": rep, "input_nominal": 8192, "concurrency": 4, "requests": PER_RUN, "ok": ok}
            written += handle.write(json.dumps(run_record) + "\n")
        handle.write(json.dumps({"type": "footer", "ended_at": "2026-11-01T10:00:00Z", "requests": requests, "timed_requests": requests}) + "\n")
    return rep


def _telemetry(path: Path, budget: int, rng: random.Random) -> None:
    written, step = 0, 0
    with path.open("w") as handle:
        while written < budget:
            sample = {
                "type": "sample",
                "t_s": round(step * 0.25, 3),
                "engine": {"running": rng.randint(0, 4), "waiting": 0, "kv_usage": round(rng.random(), 4), "prompt_tokens": 6066 * step},
                "gpus": [
                    {
                        "index": i,
                        "memory_used": rng.randint(1000, 97000),
                        "power_draw": round(rng.uniform(80, 300), 1),
                        "utilization_gpu": rng.randint(0, 100),
                    }
                    for i in range(2)
                ],
            }
            written += handle.write(json.dumps(sample) + "\n")
            step += 1


def _log(index: int, rng: random.Random) -> str:
    kinds = (
        f"INFO 11-01 09:{index % 60:02d}:{index % 59:02d} engine.py:{index % 900}] Avg prompt throughput: {rng.uniform(1, 9e4):.1f} tokens/s\n",
        f'INFO 11-01 09:{index % 60:02d}:{index % 59:02d} api_server.py:102] 10.20.30.{index % 250}:5{index % 9999:04d} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n',
        f"DEBUG 11-01 09:{index % 60:02d}:{index % 59:02d} worker.py:55] gpu-node-17 {GPUS[index % 2]} step {index} took {rng.uniform(0, 50):.3f} ms\n",
    )
    return kinds[index % 3]


def generate(root: Path, size_mb: float, seed: int = 7) -> int:
    """Write the raw trial; return its size in bytes."""
    rng = random.Random(seed)
    budget = int(size_mb * 1_000_000)
    for folder in ("journals", "telemetry", "logs"):
        (root / folder).mkdir(parents=True)
    reps = 1
    for seq, (arm, phase) in enumerate(ARMS, start=1):
        stem = f"{seq:02d}-{arm}-{phase}"
        reps = max(reps, _journal(root / "journals" / f"{stem}.jsonl", seq, arm, phase, int(budget * 0.85 / 3), rng))
        _telemetry(root / "telemetry" / f"{stem}.jsonl", int(budget * 0.12 / 3), rng)
        with (root / "logs" / f"{stem}.log").open("w") as handle:
            written = index = 0
            while written < budget * 0.03 / 3:
                written += handle.write(_log(index, rng))
                index += 1
    trial = {
        "schema": "evidence-kit/trial/v1",
        "trial_id": "bench",
        "title": "Redaction throughput",
        "engine_kind": "vllm",
        "decision_rule": {"min_improvement": 0.1},
        "workload": {
            "input_nominal": [8192],
            "concurrency": [4],
            "repetitions": reps,
            "requests_per_run": PER_RUN,
            "max_tokens": 4096,
            "temperature": 0.0,
        },
        "arms": [
            {
                "seq": seq,
                "arm": arm,
                "role": "candidate" if phase == "candidate" else "control",
                "phase": phase,
                "journal": f"journals/{seq:02d}-{arm}-{phase}.jsonl",
            }
            for seq, (arm, phase) in enumerate(ARMS, start=1)
        ],
    }
    (root / "trial.json").write_text(json.dumps(trial, indent=2) + "\n")
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
        withheld = len(result.withheld)
        print(f"raw size            {mb:10.1f} MB (generated in {generated:.1f} s)")
        print(f"baseline parse+dump {base:10.2f} s wall {base_cpu:8.2f} s cpu  {mb / base_cpu:8.1f} MB/s cpu")
        print(
            f"redact (all stages) {redacted:10.2f} s wall {redacted_cpu:8.2f} s cpu  {mb / redacted_cpu:8.1f} MB/s cpu"
            f"  ({replaced} pseudonyms, {withheld} files withheld, scan clean)"
        )
        print(f"ratio redact/base   {redacted / base:10.2f}x wall {redacted_cpu / base_cpu:6.2f}x cpu  (goal: at most 1.2x)")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
