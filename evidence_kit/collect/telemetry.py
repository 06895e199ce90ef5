"""Background telemetry of one arm: engine occupancy and KV use, GPU, engine memory, OOM kills.

Each sample is one JSONL line in ``telemetry/<seq>-<arm>-<phase>.jsonl``;
``summary()`` condenses them for the journal footer. A source that is not
there (no ``nvidia-smi``, no cgroup, an engine not started locally) is
recorded as absent, never filled in.
"""

from __future__ import annotations

import asyncio
import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path

import httpx

from ..aio import cancel_and_wait
from ..analyze.telemetry import telemetry_summary
from ..model.dialects import DIALECTS, Dialect
from ..model.telemetry import GPU_FIELDS, CgroupMemory, EngineSample, GpuSample, ProcessMemory, TelemetrySample, TelemetrySummary
from ..read import read_telemetry
from .metrics import Scrape, scrape

__all__ = ["TelemetrySampler", "engine_sample", "process_group_memory", "cgroup_of", "read_cgroup", "query_gpus"]


def _reading(value: float) -> bool:
    return math.isfinite(value) and value >= 0


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None  # "[N/A]" and friends: absent, not zero
    return value if _reading(value) else None


def engine_sample(scraped: Scrape) -> EngineSample:
    """The gauges and counters the engine exposes; a value that is no reading (NaN, negative) is absent."""
    values = {**scraped.gauges(), **scraped.counters()}
    return EngineSample(**{key: value for key, value in values.items() if _reading(value)})


async def query_gpus(binary: str) -> list[GpuSample] | None:
    """One row per GPU from ``nvidia-smi --query-gpu``; ``None`` when it fails."""
    try:
        proc = await asyncio.create_subprocess_exec(
            binary,
            f"--query-gpu={','.join(GPU_FIELDS.values())}",
            "--format=csv,noheader,nounits",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        stdout, _ = await asyncio.wait_for(proc.communicate(), timeout=5.0)
    except (TimeoutError, OSError):
        return None
    if proc.returncode != 0:
        return None
    rows = []
    for line in stdout.decode("utf-8", "replace").splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) == len(GPU_FIELDS):
            rows.append(GpuSample(**{key: _number(cell) for key, cell in zip(GPU_FIELDS, cells)}))
    return rows or None


def process_group_memory(pgid: int) -> ProcessMemory | None:
    """Summed resident and peak-resident bytes of every process in group ``pgid`` (Linux /proc)."""
    rss = peak = count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            status = (entry / "status").read_text()
        except (OSError, ValueError, IndexError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss += int(line.split()[1]) * 1024
            elif line.startswith("VmHWM:"):
                peak += int(line.split()[1]) * 1024
        count += 1
    return ProcessMemory(rss_bytes=rss, peak_rss_bytes=peak, processes=count) if count else None


def cgroup_of(pid: int) -> Path | None:
    """The cgroup v2 folder of process ``pid``, if it has one we can read."""
    try:
        for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                folder = Path("/sys/fs/cgroup") / line[3:].lstrip("/")
                return folder if (folder / "memory.current").exists() else None
    except OSError:
        return None
    return None


def read_cgroup(folder: Path) -> CgroupMemory | None:
    """memory.current, memory.peak and the oom_kill count of a cgroup v2 folder (what exists);
    ``None`` (absent) when none of them can be read, e.g. the folder does not exist (yet)."""
    found: dict[str, int] = {}
    for name, key in (("memory.current", "memory_bytes"), ("memory.peak", "peak_memory_bytes")):
        try:
            found[key] = int((folder / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    try:
        for line in (folder / "memory.events").read_text().splitlines():
            if line.startswith("oom_kill "):
                found["oom_kills"] = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return CgroupMemory(**found) if found else None  # only what was read is set, and so written


def _earlier_samples(path: Path) -> list[TelemetrySample]:
    """Samples a resumed arm already wrote (an interrupted torn last line is cut off), so the
    footer's summary covers the whole series in the file, as ``analyze`` recomputes it."""
    if not path.is_file():
        return []
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with path.open("r+b") as handle:
            handle.truncate(len(complete))
    return read_telemetry(path) or []  # as analyze will read it


class TelemetrySampler:
    """Sample every ``interval_s`` until stopped; append each sample to ``path``."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        path: Path,
        *,
        interval_s: float,
        clock: Callable[[], float],
        nvidia_smi: bool,
        pgid: int | None,
        cgroup: Path | None,
        dialect: Dialect = DIALECTS["vllm"],
    ):
        self.client, self.base_url, self.path, self.dialect = client, base_url, path, dialect
        self.interval_s, self.clock = interval_s, clock
        self.gpu_binary = shutil.which("nvidia-smi") if nvidia_smi else None
        self.pgid, self.cgroup = pgid, cgroup
        self.samples: list[TelemetrySample] = _earlier_samples(path)
        # A resumed arm continues its series after the earlier session's last sample (the
        # downtime between sessions is not shown; the first new sample says it resumed), so
        # ``t_s`` keeps increasing through the file instead of starting again at zero.
        earlier = self.samples[-1].t_s + interval_s if self.samples else 0.0
        self._resumed = bool(self.samples)
        self._t0 = clock() - earlier
        self._task: asyncio.Task[None] | None = None

    async def sample(self) -> TelemetrySample:
        """Take one sample of every source and append it to the file."""
        t_s = round(self.clock() - self._t0, 3)
        resumed = {"resumed": True} if self._resumed else {}  # only the first new sample says so
        self._resumed = False
        scraped = await scrape(self.client, self.base_url, self.dialect, timeout=max(self.interval_s, 2.0))
        record = TelemetrySample(
            type="sample",
            t_s=t_s,
            **resumed,
            engine=None if scraped is None else engine_sample(scraped),
            gpus=await query_gpus(self.gpu_binary) if self.gpu_binary else None,
            process=process_group_memory(self.pgid) if self.pgid else None,
            cgroup=read_cgroup(self.cgroup) if self.cgroup else None,
        )
        self.samples.append(record)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Only what was set is written: an engine metric the engine does not expose is left out,
        # a source that is absent is null.
        line = json.dumps(record.model_dump(exclude_unset=True), separators=(",", ":"), sort_keys=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        return record

    async def _loop(self) -> None:
        while True:
            await self.sample()
            await asyncio.sleep(self.interval_s)

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> TelemetrySummary:
        """Stop sampling (after one last sample) and return :meth:`summary`."""
        await cancel_and_wait(self._task)
        await self.sample()
        return self.summary()

    def summary(self) -> TelemetrySummary:
        """Maxima and minima over the samples (the same function ``analyze`` recomputes them with)."""
        return telemetry_summary(self.samples)
