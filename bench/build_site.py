"""Where `evidence-kit build` spends its time, by stage, for 1 and N copies of the reference decision.

    .venv/bin/python bench/build_site.py --decisions 1,4

Stages: load + analyze, render (pages and SVG charts, in memory), write + `mkdocs build --strict`
(child process), site manifest + leak scan. Each stage's time is CPU seconds of the whole process tree
(this process and the children it waited for, mkdocs included): on a loaded machine wall time says more
about the neighbours. Prints a Markdown table, the load average and the CPU per extra decision.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import tempfile
import time
from pathlib import Path

from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import site as site_mod
from evidence_kit.redact import redact_bundle


def _decisions(root: Path, n: int) -> list[Path]:
    raw = write_reference_decision(root / "raw")
    base = redact_bundle(raw, root / "redacted").out
    folders = []
    for i in range(n):
        folder = root / f"d{i}"
        shutil.copytree(base, folder)
        toml = (folder / "decision.toml").read_text()
        (folder / "decision.toml").write_text(re.sub(r'^id = ".*"$', f'id = "bench-{i:02d}"', toml, flags=re.M))
        folders.append(folder)
    return folders


def _cpu() -> float:
    """CPU seconds of this process and of every child it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure(n: int) -> dict[str, float]:
    """Seconds per stage for one build of ``n`` decisions."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = _decisions(root, n)
        times: dict[str, float] = {}
        t = _cpu()
        loaded = site_mod.load_decisions(folders)
        times["load + analyze"] = _cpu() - t
        t = _cpu()
        files = site_mod.docs_files(loaded)
        times["render (pages + SVG)"] = _cpu() - t
        staged = root / "staged"
        t = _cpu()
        site_mod._write_tree(staged, files)
        site_mod.run_mkdocs(staged / "mkdocs.yml", site_mod.source_date_epoch(["2026-11-01"]))
        times["mkdocs build --strict"] = _cpu() - t
        t = _cpu()
        site_mod.write_manifest(staged / "public")
        site_mod.scan_site([staged / "site", staged / "public"], [], shown_as=root)
        times["manifest + leak scan"] = _cpu() - t
        times["pages"] = float(sum(1 for k in files if k.endswith(".md")))
        times["total"] = sum(v for k, v in times.items() if k != "pages")
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", default="1,4", help="comma-separated decision counts")
    args = parser.parse_args()
    counts = [int(x) for x in args.decisions.split(",")]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}; CPU seconds")
    measure(1)  # imports, caches and the first render's one-time work: not a decision's cost
    results = {n: measure(n) for n in counts}
    stages = [k for k in results[counts[0]] if k != "pages"]
    print("| stage | " + " | ".join(f"{n} decision(s), {int(results[n]['pages'])} pages" for n in counts) + " |")
    print("|---|" + "---|" * len(counts))
    for stage in stages:
        print(f"| {stage} | " + " | ".join(f"{results[n][stage]:.2f} s" for n in counts) + " |")
    if len(counts) > 1:
        extra = (results[counts[-1]]["total"] - results[counts[0]]["total"]) / (counts[-1] - counts[0])
        print(f"\nCPU per extra decision: {extra:.2f} s")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
