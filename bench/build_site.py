"""What `evidence-kit build` costs per decision: stage by stage, and whole builds with and without the chart cache.

    .venv/bin/python bench/build_site.py --decisions 1,4,8

The decisions are copies of the reference decision (two trials, three charts each) under their own ids.
Each figure is of the whole process tree: CPU seconds of this process and of every child it waited for
(mkdocs included), and wall seconds, which on a loaded machine say more about the neighbours.

- The stage table (CPU): load + analyze, render (pages and SVG charts, in memory, every chart drawn),
  write + `mkdocs build --strict` (child process), site manifest + leak scan.
- Whole builds (`build_site`, as the command runs it): with the chart cache off, every decision's charts
  are drawn (a site of new decisions); with a warm cache (the same decisions built once before), they are
  read back (a rebuild, or a site that grew: its new decision costs what it costs uncached).

Prints the load average before and after, and the cost per extra decision: the difference between the
largest and the smallest count's build, divided by the number of decisions between them.

``--pool N`` also draws every chart of the largest count in one process and in N worker processes
(spawned, as a pool in ``build`` would have to be: vl-convert's engine threads do not survive a fork),
to show whether drawing in parallel would win on this machine.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.publish import site as site_mod
from evidence_kit.redact import redact_bundle
from evidence_kit.render.chart_cache import ChartCache
from evidence_kit.render.chart_data import telemetry_rows
from evidence_kit.render.charts import trial_charts


def _decisions(root: Path, n: int) -> list[Path]:
    """``n`` redacted copies of the reference decision, each under its own id (edited before redaction, so
    each copy's manifest holds)."""
    raw = write_reference_decision(root / "raw")
    folders = []
    for i in range(n):
        copy = root / f"raw-{i}"
        shutil.copytree(raw, copy)
        toml = (copy / "decision.toml").read_text()
        (copy / "decision.toml").write_text(re.sub(r'^id = ".*"$', f'id = "bench-{i:02d}"', toml, flags=re.M))
        folders.append(redact_bundle(copy, root / f"d{i}").out)
    return folders


def _cpu() -> float:
    """CPU seconds of this process (all its threads) and of every child it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed(work: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``work``."""
    wall, cpu = time.perf_counter(), _cpu()
    work()
    return time.perf_counter() - wall, _cpu() - cpu


def stages(folders: list[Path], root: Path) -> dict[str, float]:
    """CPU seconds per stage of one build of ``folders``, every chart drawn."""
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
    times["total"] = sum(times.values())
    times["pages"] = float(sum(1 for k in files if k.endswith(".md")))
    shutil.rmtree(staged)
    return times


def builds(folders: list[Path], root: Path) -> dict[str, tuple[float, float]]:
    """(wall, CPU) of whole builds of ``folders``: with the chart cache off, and with it warm."""
    cache = ChartCache(root / "chart-cache")
    site_mod.build_site(folders, root / "warm-up", charts=cache)
    return {
        "chart cache off": _timed(lambda: site_mod.build_site(folders, root / "uncached", charts=ChartCache(None))),
        "chart cache warm": _timed(lambda: site_mod.build_site(folders, root / "warm", charts=cache)),
    }


def _draw(job: tuple[Any, Any]) -> list[bytes]:
    return [chart.svg for chart in trial_charts(*job).values()]


def pooled(n: int, workers: int) -> dict[str, tuple[float, float]]:
    """(wall, CPU) of drawing every chart of ``n`` decisions in this process and in ``workers`` processes."""
    with tempfile.TemporaryDirectory() as tmp:
        loaded = site_mod.load_decisions(_decisions(Path(tmp), n))
        jobs = [(t, telemetry_rows(t, ev)) for evidence, analysis in loaded for t, ev in zip(analysis.trials, evidence.trials)]
        drawn: dict[str, list[list[bytes]]] = {}

        def in_pool() -> None:
            with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
                drawn["pool"] = list(pool.map(_draw, jobs))

        times = {"one process": _timed(lambda: drawn.setdefault("one", [_draw(job) for job in jobs])), f"{workers} processes": _timed(in_pool)}
        assert drawn["one"] == drawn["pool"], "the pool drew other bytes"
        return times


def measure(n: int) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """The stage table's and the whole builds' figures for ``n`` decisions."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = _decisions(root, n)
        return stages(folders, root), builds(folders, root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", default="1,4,8", help="comma-separated decision counts")
    parser.add_argument("--pool", type=int, default=0, help="also draw the largest count's charts in this many processes")
    args = parser.parse_args()
    counts = [int(x) for x in args.decisions.split(",")]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}")
    measure(1)  # imports, caches and vl-convert's start-up: not a decision's cost
    results = {n: measure(n) for n in counts}
    print("\nCPU seconds by stage, every chart drawn:\n")
    print("| stage | " + " | ".join(f"{n} decision(s), {int(results[n][0]['pages'])} pages" for n in counts) + " |")
    print("|---|" + "---|" * len(counts))
    for stage in [k for k in results[counts[0]][0] if k != "pages"]:
        print(f"| {stage} | " + " | ".join(f"{results[n][0][stage]:.2f} s" for n in counts) + " |")
    print("\nWhole builds (`build_site`), wall / CPU seconds of the process tree:\n")
    print("| build | " + " | ".join(f"{n} decision(s)" for n in counts) + (" | per extra decision |" if len(counts) > 1 else " |"))
    print("|---|" + "---|" * (len(counts) + (len(counts) > 1)))
    for mode in results[counts[0]][1]:
        cells = [f"{results[n][1][mode][0]:.2f} / {results[n][1][mode][1]:.2f} s" for n in counts]
        if len(counts) > 1:
            first, last = results[counts[0]][1][mode], results[counts[-1]][1][mode]
            span = counts[-1] - counts[0]
            cells.append(f"**{(last[0] - first[0]) / span:.2f} / {(last[1] - first[1]) / span:.2f} s**")
        print(f"| {mode} | " + " | ".join(cells) + " |")
    if args.pool:
        print(f"\nDrawing every chart of {counts[-1]} decision(s), wall / CPU seconds of the process tree:\n")
        for mode, (wall, cpu) in pooled(counts[-1], args.pool).items():
            print(f"- {mode}: {wall:.2f} / {cpu:.2f} s")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
