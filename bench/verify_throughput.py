"""Benchmark: `evidence-kit verify` on ~1 GB of signed evidence against `sha256sum` of the same files.

Builds a decision folder from the reference reconstruction, redacts it, adds
engine logs (``logs/*.log``, the contract's opaque files) to each trial bundle until the folder holds
``--size-mb`` of evidence, rewrites the bundle manifests and signs the folder.
Then times, in the same run and on the same (page-cached) files, the whole
``evidence-kit verify --key`` (every check: signature, digests, completeness,
paths, contract, receipts, figures) and ``sha256sum`` of every file, best of
``--repeat`` each, and prints the ratio (and the ratio to ``openssl dgst -sha256``
when OpenSSL's command line is installed, with the ratio of their CPU time, user plus system:
``ratio_openssl_cpu``, the measure a loaded machine still gives; the one-minute load is printed
beside). The generated data is deleted at the end.

Before timing, verify runs once untimed with bytecode writing allowed, so the timed runs import compiled
modules, as an installed evidence-kit does (pip compiles on install); under ``PYTHONDONTWRITEBYTECODE``
an editable checkout would otherwise compile its own sources on every run (a quarter of a second of
CPU that no installed verifier spends).

    .venv/bin/python bench/verify_throughput.py --size-mb 1024
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evidence_kit.attest import generate_keypair, sign_tree, write_manifest
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.redact import redact_bundle

CHUNK = 1 << 20


def _log_chunk(seed: int) -> bytes:
    """One MiB of engine-log-like text, different for every seed."""
    lines = []
    size = 0
    i = 0
    while size < CHUNK:
        line = (
            f"INFO 11-01 09:{(seed + i) % 60:02d}:{i % 60:02d} engine.py:{seed % 997}] step={seed * 4096 + i} "
            f"running=4 waiting=0 kv_usage={(i * 37 % 1000) / 10:.1f}% gen_tokens_s={(seed * 31 + i) % 5000}\n"
        )
        lines.append(line)
        size += len(line)
        i += 1
    return "".join(lines).encode()[:CHUNK]


def make_evidence(root: Path, size_mb: int, key: Path) -> tuple[Path, list[Path]]:
    """A signed decision folder of about ``size_mb`` MiB; returns it and every file in it."""
    raw = write_reference_decision(root / "raw")
    decision = redact_bundle(raw, root / "decision", key=b"benchmark-key-0123456789abcdef!!").out
    shutil.rmtree(raw)
    bundles = sorted(p.parent for p in decision.glob("*/trial.json"))
    per_bundle = max(1, size_mb // len(bundles))
    for b, bundle in enumerate(bundles):
        (bundle / "logs").mkdir(exist_ok=True)
        # Three quarters engine logs, a quarter raw samples kept as logs (a telemetry/*.csv is not a file of the
        # contract: verify refuses it), in files of at most 64 MiB.
        for kind, share in (("engine", per_bundle - per_bundle // 4), ("samples", per_bundle // 4)):
            written = 0
            part = 0
            while written < share:
                n = min(64, share - written)
                with open(bundle / "logs" / f"{kind}-{part:03d}.log", "wb") as handle:
                    for k in range(n):
                        handle.write(_log_chunk(b * 100_000 + part * 64 + k))
                written += n
                part += 1
        write_manifest(bundle)
    sign_tree(decision, key)
    files = sorted(p for p in decision.rglob("*") if p.is_file())
    return decision, files


def _best(command: list[str], repeat: int, cwd: Path | None = None) -> float:
    """Best wall-clock seconds of ``repeat`` runs."""
    return min(_timed(command, cwd)[0] for _ in range(repeat))


def _best_cpu(command: list[str], repeat: int, cwd: Path | None = None) -> float:
    """Best CPU seconds (user + system, the child and its children) of ``repeat`` runs: on a shared, loaded
    machine CPU time is what the program costs, where wall-clock time is mostly what the others cost."""
    return min(_timed(command, cwd)[1] for _ in range(repeat))


def _timed(command: list[str], cwd: Path | None) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(size_mb: int, repeat: int, workdir: Path | None = None) -> dict[str, float | int]:
    """Generate, time both, delete; return the measurements."""
    root = Path(tempfile.mkdtemp(prefix="ek-bench-verify-", dir=workdir))
    try:
        private, public, _ = generate_keypair(root / "keys")
        decision, files = make_evidence(root, size_mb, private)
        total = sum(f.stat().st_size for f in files)
        cli = str(Path(sys.executable).with_name("evidence-kit"))
        rel = [str(f.relative_to(decision)) for f in files]
        _best(["sha256sum", *rel], 1, cwd=decision)  # warm the page cache for both
        warm = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run([cli, "verify", str(decision), "--key", str(public)], check=True, stdout=subprocess.DEVNULL, env=warm)
        sha = _best(["sha256sum", *rel], repeat, cwd=decision)
        verify = _best([cli, "verify", str(decision), "--key", str(public)], repeat)
        # A second baseline: coreutils' sha256sum may not use the CPU's SHA instructions; OpenSSL does.
        openssl = _best(["openssl", "dgst", "-sha256", *rel], repeat, cwd=decision) if shutil.which("openssl") else None
        extra = {} if openssl is None else {"openssl_s": round(openssl, 3), "ratio_openssl": round(verify / openssl, 3)}
        if openssl is not None:
            # The measure: verify's CPU over openssl's, on the same bytes, in the same run.
            verify_cpu = _best_cpu([cli, "verify", str(decision), "--key", str(public)], repeat)
            openssl_cpu = _best_cpu(["openssl", "dgst", "-sha256", *rel], repeat, cwd=decision)
            extra |= {
                "verify_cpu_s": round(verify_cpu, 3),
                "openssl_cpu_s": round(openssl_cpu, 3),
                "ratio_openssl_cpu": round(verify_cpu / openssl_cpu, 3),
            }
        extra["load_1min"] = round(os.getloadavg()[0], 2)
        return extra | {
            "bytes": total,
            "files": len(files),
            "sha256sum_s": round(sha, 3),
            "verify_s": round(verify, 3),
            "ratio": round(verify / sha, 3),
            "sha256sum_MBps": round(total / sha / 1e6, 1),
            "verify_MBps": round(total / verify / 1e6, 1),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="evidence to generate, MiB (default 1024)")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs of each, best kept (default 2)")
    parser.add_argument("--workdir", type=Path, default=None, help="where to generate (default: the temp folder)")
    args = parser.parse_args(argv)
    result = run(args.size_mb, args.repeat, args.workdir)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    sys.exit(main())
