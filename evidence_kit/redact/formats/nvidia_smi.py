"""``nvidia-smi -q``: each GPU's product, memory, power and modes (and what ``nvidia_csv.py`` shares).

``-q`` is a tree of ``Key : Value`` lines indented four spaces a level, one ``GPU <bus id>``
section per GPU; the keys read are in ``QUERY_KEYS``. Values are read with or without their
units; ``N/A`` and ``[Not Supported]`` are absent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ...model.formats.nvidia import NvidiaGpu, NvidiaSmi
from .build import build
from .lines import cleaned
from .reader import Example, FormatReader

__all__ = ["ABSENT", "BUS_ID", "MAX_ROWS", "QUERY_READER", "UUID", "Convert", "amount", "put", "record", "whole_amount", "word"]

MAX_ROWS = 10_000
ABSENT = re.compile(r"^\[?(?:N/A|Not Supported|Unknown Error|Insufficient Permissions|Requested functionality has been deprecated|None)\]?$")
_NUMBER = re.compile(r"^(?P<n>[+-]?\d{1,15}(?:\.\d{1,9})?)\s*(?:MiB|W|MHz|C|%|mV|KB/s)?$")
UUID = re.compile(r"^(?:GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
BUS_ID = re.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")


def amount(text: str) -> float | None:
    """A number with or without its unit (``700.00 W``, ``81559``), or ``None``."""
    match = _NUMBER.match(text)
    return float(match["n"]) if match else None


def whole_amount(text: str) -> int | None:
    value = amount(text)
    return int(value) if value is not None and value.is_integer() else None


def word(text: str) -> str:
    return text


Convert = Callable[[str], Any]

# -q: the path of section names and key, '/'-joined -> the NvidiaGpu field and how its value reads.
QUERY_KEYS: dict[str, tuple[str, Convert]] = {
    "Product Name": ("product", word),
    "Product Brand": ("brand", word),
    "Product Architecture": ("architecture", word),
    "Persistence Mode": ("persistence_mode", word),
    "MIG Mode/Current": ("mig_mode", word),
    "Serial Number": ("serial", word),
    "GPU UUID": ("uuid", word),
    "Minor Number": ("minor_number", whole_amount),
    "VBIOS Version": ("vbios_version", word),
    "Board ID": ("board_id", word),
    "Board Part Number": ("board_part_number", word),
    "GPU Part Number": ("gpu_part_number", word),
    "Module ID": ("module_id", whole_amount),
    "Platform Info/Module Id": ("module_id", whole_amount),
    "PCI/Bus Id": ("bus_id", word),
    "FB Memory Usage/Total": ("memory_total_mib", whole_amount),
    "FB Memory Usage/Reserved": ("memory_reserved_mib", whole_amount),
    "FB Memory Usage/Used": ("memory_used_mib", whole_amount),
    "FB Memory Usage/Free": ("memory_free_mib", whole_amount),
    "Compute Mode": ("compute_mode", word),
    "Performance State": ("performance_state", word),
    "ECC Mode/Current": ("ecc_mode", word),
    "Ecc Mode/Current": ("ecc_mode", word),
    "Temperature/GPU Current Temp": ("temperature_c", amount),
    "Utilization/Gpu": ("utilization_gpu_percent", amount),
    "Utilization/Memory": ("utilization_memory_percent", amount),
    "Max Clocks/Graphics": ("max_graphics_clock_mhz", whole_amount),
    "Max Clocks/SM": ("max_sm_clock_mhz", whole_amount),
    "Max Clocks/Memory": ("max_memory_clock_mhz", whole_amount),
    "Fabric/ClusterUUID": ("fabric_cluster_uuid", word),
}
for _section in ("GPU Power Readings", "Power Readings"):
    QUERY_KEYS |= {
        # The limit in force: older drivers list "Power Limit" and then "Enforced Power Limit" (the last read wins).
        f"{_section}/Power Limit": ("power_limit_w", amount),
        f"{_section}/Current Power Limit": ("power_limit_w", amount),
        f"{_section}/Enforced Power Limit": ("power_limit_w", amount),
        f"{_section}/Default Power Limit": ("power_default_limit_w", amount),
        f"{_section}/Min Power Limit": ("power_min_limit_w", amount),
        f"{_section}/Max Power Limit": ("power_max_limit_w", amount),
        f"{_section}/Power Draw": ("power_draw_w", amount),
        f"{_section}/Average Power Draw": ("power_draw_w", amount),
    }
TOP_KEYS: dict[str, tuple[str, Convert]] = {
    "Timestamp": ("timestamp", word),
    "Driver Version": ("driver_version", word),
    "CUDA Version": ("cuda_version", word),
    "Attached GPUs": ("attached_gpus", whole_amount),
}
_ENTRY = re.compile(r"^(?P<indent> *)(?P<key>[^:\s][^:]{0,120}?)\s*(?::(?:\s+(?P<value>.*?))?)?\s*$")
_GPU = re.compile(r"^GPU (?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])$")


def put(target: dict[str, Any], spec: tuple[str, Convert] | None, value: str) -> None:
    if spec is None or ABSENT.match(value):
        return
    name, convert = spec
    converted = convert(value)
    if converted is not None:
        target[name] = converted


class _Report:
    """The state of reading one -q report: the values above the GPU sections, each section's, the path of sections."""

    def __init__(self) -> None:
        self.top: dict[str, Any] = {}
        self.gpus: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None  # the GPU section being read (past MAX_ROWS, a scratch one)
        self.stack: list[tuple[int, str]] = []
        self.not_kept = 0

    def gpu(self, bus: str) -> None:
        self.current, self.stack = {"bus_id": bus, "processes": 0}, []
        if len(self.gpus) < MAX_ROWS:
            self.gpus.append(self.current)
        else:
            self.not_kept += 1

    def entry(self, indent: int, key: str, value: str | None, line: str) -> None:
        self.stack = [(i, name) for i, name in self.stack if i < indent]
        if value is None and ":" not in line:
            if len(self.stack) < 8:  # -q nests four deep; deeper is not its shape
                self.stack.append((indent, key))
            return
        where = "/".join([name for _, name in self.stack] + [key])
        if self.current is None:
            put(self.top, TOP_KEYS.get(where), value or "")
        elif where.startswith("Processes/") and key == "Process ID":
            self.current["processes"] += 1
        else:
            put(self.current, QUERY_KEYS.get(where), value or "")


def read_query(lines: Iterable[str], path: str) -> NvidiaSmi:
    """The report of ``nvidia-smi -q``."""
    report = _Report()
    for line in cleaned(lines):
        if (gpu := _GPU.match(line)) is not None:
            report.gpu(gpu["bus"])
        elif (entry := _ENTRY.match(line)) is not None:
            report.entry(len(entry["indent"]), entry["key"], entry["value"], line)
    return record(report.top, report.gpus, not_kept=report.not_kept)


def record(top: dict[str, Any], rows: list[dict[str, Any]], *, not_kept: int = 0, unread: int = 0) -> NvidiaSmi:
    withheld = 0
    kept = []
    for row in rows:
        gpu, dropped = build(NvidiaGpu, row)
        kept.append(gpu)
        withheld += dropped
    data = dict(top, rows_not_kept=not_kept, cells_unread=unread)
    record, dropped = build(NvidiaSmi, data)
    return record.model_copy(update={"gpus": kept, "values_withheld": withheld + dropped})


def recognises_query(path: str, head: str) -> bool:
    """``nvidia-smi -q``: its banner, or a ``Driver Version :`` line and a ``GPU <bus id>`` section."""
    lines = head.splitlines()[:4000]
    if any(line.strip() == "==============NVSMI LOG==============" for line in lines):
        return True
    return any(line.startswith("Driver Version ") for line in lines) and any(_GPU.match(line.rstrip()) for line in lines)


_SMI_Q = """==============NVSMI LOG==============

Timestamp                                 : Tue Nov  3 09:14:05 2026
Driver Version                            : 570.133.20
CUDA Version                              : 12.8

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Serial Number                         : 1654922001234
    GPU UUID                              : GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0
    PCI
        Bus Id                            : 00000000:18:00.0
    FB Memory Usage
        Total                             : 81559 MiB
    Compute Mode                          : Default
    GPU Power Readings
        Current Power Limit               : 700.00 W
"""
QUERY_READER = FormatReader(
    name="nvidia-smi-query",
    summary="nvidia-smi -q: driver and CUDA versions, each GPU's product, memory, power limits and modes",
    record=NvidiaSmi,
    recognises=recognises_query,
    read=read_query,
    examples=(
        Example(
            text=_SMI_Q,
            path="logs/nvidia-smi-q.txt",
            expect={
                "driver_version": "570.133.20",
                "cuda_version": "12.8",
                "attached_gpus": 1,
                "gpus": [
                    {
                        "product": "NVIDIA H100 80GB HBM3",
                        "memory_total_mib": 81559,
                        "power_limit_w": 700.0,
                        "compute_mode": "Default",
                        "uuid": "GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
                        "serial": "1654922001234",
                        "bus_id": "00000000:18:00.0",
                    }
                ],
            },
        ),
    ),
)
