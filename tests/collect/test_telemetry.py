"""Telemetry: GPU rows from nvidia-smi when present (a fake one here: no GPU exists), absent otherwise."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from evidence_kit.collect.telemetry import TelemetrySampler
from evidence_kit.engine_sim.server import running_simulator
from evidence_kit.model.telemetry import TelemetrySummary

FAKE_SMI = """#!/bin/sh
case "$1" in --query-gpu=*) ;; *) exit 9 ;; esac
echo "0, 81000, 2143, 97871, 287.50, 99"
echo "1, 80000, 3001, 97871, [N/A], 97"
"""


def sample_twice(url: str, path: Path, *, nvidia_smi: bool, pgid: int | None) -> TelemetrySummary:
    async def go() -> TelemetrySummary:
        async with httpx.AsyncClient() as client:
            sampler = TelemetrySampler(client, url, path, interval_s=0.05, clock=time.monotonic, nvidia_smi=nvidia_smi, pgid=pgid, cgroup=None)
            sampler.start()
            await asyncio.sleep(0.2)
            return await sampler.stop()

    return asyncio.run(go())


@pytest.fixture(scope="module")
def sim_url():
    with running_simulator("original", time_scale=50) as url:
        yield url


def test_gpu_rows_and_minimum_free_memory(tmp_path: Path, sim_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bin").mkdir()
    smi = tmp_path / "bin" / "nvidia-smi"
    smi.write_text(FAKE_SMI)
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    summary = sample_twice(sim_url, tmp_path / "t.jsonl", nvidia_smi=True, pgid=None)
    assert summary.gpu == "present" and summary.min_gpu_free_mib == 2143
    assert summary.max_gpu_power_w == 287.5  # "[N/A]" is absent, not zero
    assert summary.samples >= 2 and summary.samples == len((tmp_path / "t.jsonl").read_text().splitlines())


def test_no_gpu_is_recorded_as_absent_and_engine_memory_is_read(tmp_path: Path, sim_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi anywhere
    child = subprocess.Popen([sys.executable, "-c", "import time; x = bytearray(30 << 20); time.sleep(30)"], start_new_session=True)
    try:
        time.sleep(0.5)
        summary = sample_twice(sim_url, tmp_path / "t.jsonl", nvidia_smi=True, pgid=child.pid)
    finally:
        child.kill()
        child.wait()
    assert summary.gpu == "absent" and summary.min_gpu_free_mib is None
    assert summary.max_process_rss_bytes > 30 << 20
    assert summary.max_running == 0 and summary.oom_kills is None


def test_cgroup_files_are_read_and_a_missing_cgroup_is_absent_not_empty(tmp_path: Path) -> None:
    from evidence_kit.collect.telemetry import read_cgroup
    from evidence_kit.model.telemetry import CgroupMemory

    assert read_cgroup(tmp_path / "no-such-cgroup") is None  # was {}: present but empty
    folder = tmp_path / "engine.scope"
    folder.mkdir()
    (folder / "memory.current").write_text("123456\n")
    (folder / "memory.peak").write_text("234567\n")
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n")
    assert read_cgroup(folder) == CgroupMemory(memory_bytes=123456, peak_memory_bytes=234567, oom_kills=2)
    (folder / "memory.peak").unlink()  # kernels before 5.19 have no memory.peak
    cgroup = read_cgroup(folder)
    assert cgroup is not None and cgroup.model_dump(exclude_unset=True) == {"memory_bytes": 123456, "oom_kills": 2}


def test_samples_and_footer_summaries_are_written_as_they_always_were() -> None:
    # The collector writes a sample from its model (only what was set) and the footer's summary
    # from its model: every sample and footer it wrote before the models existed (the demo's
    # evidence in the repository) comes out byte for byte as it stands in the file.
    from evidence_kit.collect.journal_writer import encode_record
    from evidence_kit.model.telemetry import TelemetrySample

    root = Path(__file__).resolve().parents[2] / "evidence"
    samples = [line for path in sorted(root.glob("*/*/telemetry/*.jsonl")) for line in path.read_text().splitlines()]
    footers = [
        line
        for path in sorted(root.glob("*/*/journals/*.jsonl"))
        for line in path.read_text().splitlines()
        if '"telemetry"' in line and '"footer"' in line
    ]
    assert samples and footers
    for line in samples:
        sample = TelemetrySample.model_validate(json.loads(line))
        assert json.dumps(sample.model_dump(exclude_unset=True), separators=(",", ":"), sort_keys=True) == line
    for line in footers:
        footer = json.loads(line)
        footer["telemetry"] = TelemetrySummary.model_validate(footer["telemetry"]).model_dump()
        assert encode_record(footer).decode() == line + "\n"
