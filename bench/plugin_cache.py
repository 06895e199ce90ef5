"""What the MkDocs plugin adds to a host build, without and with its rendered-decision cache.

    .venv/bin/python bench/plugin_cache.py [--repeat 3]

Builds the test host (tests/plugin_host.py: Material, two pages) with `mkdocs build --strict` in a child
process, as a user runs it: the host alone (no plugin), then with the plugin and the reference decision,
cold (an empty cache: load, analyse, render) and warm (the unchanged rebuild, read back from the cache).
Each figure is the median of --repeat builds, in seconds of wall time and in CPU seconds of the build's
process (user + system: on a shared machine the wall time grows with the load, the CPU time hardly);
the load average is printed with them. Prints a Markdown
table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evidence_kit.examples.reference import write_reference_decision  # noqa: E402
from evidence_kit.redact import redact_bundle  # noqa: E402
from tests.plugin_host import build_host, write_host  # noqa: E402


def _cpu() -> float:
    """CPU seconds (user + system) of the finished child processes: what a build costs, whatever the load."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(config: Path) -> tuple[float, float]:
    start, cpu = time.perf_counter(), _cpu()
    done = build_host(config)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return elapsed, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        decision = redact_bundle(write_reference_decision(root / "raw"), root / "decision", key=b"bench-key-0123456789abcdef0123456").out
        alone = write_host(root / "alone", {"decisions": [str(decision)]})
        config = yaml.safe_load(alone.read_text())
        config["plugins"] = [p for p in config["plugins"] if not (isinstance(p, dict) and "evidence-kit" in p)]
        alone.write_text(yaml.safe_dump(config, sort_keys=False))
        host = write_host(root / "host", {"decisions": [str(decision)]})
        cache = root / "host" / ".cache"
        rows: dict[str, list[tuple[float, float]]] = {
            "host alone": [],
            "host + plugin, cold (no cache)": [],
            "host + plugin, warm (unchanged rebuild)": [],
        }
        for _ in range(args.repeat):
            rows["host alone"].append(_timed(alone))
            shutil.rmtree(cache, ignore_errors=True)
            rows["host + plugin, cold (no cache)"].append(_timed(host))
            rows["host + plugin, warm (unchanged rebuild)"].append(_timed(host))
    wall = {name: statistics.median(w for w, _ in values) for name, values in rows.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in rows.items()}
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores, median of {args.repeat}")
    print("| build | seconds | over the host alone | CPU seconds | CPU over the host alone |")
    print("|---|---|---|---|---|")
    for name in rows:
        over, cpu_over = wall[name] - wall["host alone"], cpu[name] - cpu["host alone"]
        print(f"| {name} | {wall[name]:.2f} | {over:+.2f} s | {cpu[name]:.2f} | {cpu_over:+.2f} s |")


if __name__ == "__main__":
    main()
