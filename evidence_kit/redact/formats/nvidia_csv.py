"""``nvidia-smi --query-gpu=... --format=csv``, with or without ``noheader`` and ``nounits``: a GPU reading per row.

A CSV's header names its columns with the ``--query-gpu`` fields (``memory.total [MiB]``);
without a header a column is read only when its values say what they are (a GPU UUID, a product
name, a bus id, a driver version), the others are counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ...model.formats.nvidia import NvidiaSmi
from ...model.formats.shapes import DRIVER_VERSION, GPU_PRODUCT
from .lines import cleaned
from .nvidia_smi import ABSENT, BUS_ID, MAX_ROWS, UUID, Convert, amount, put, record, whole_amount, word
from .reader import Example, FormatReader

__all__ = ["CSV_READER"]

# --query-gpu fields (nvidia-smi --help-query-gpu), as a CSV header names them -> the NvidiaGpu field.
CSV_FIELDS: dict[str, tuple[str, Convert]] = {
    "index": ("index", whole_amount),
    "name": ("product", word),
    "gpu_name": ("product", word),
    "uuid": ("uuid", word),
    "gpu_uuid": ("uuid", word),
    "serial": ("serial", word),
    "gpu_serial": ("serial", word),
    "pci.bus_id": ("bus_id", word),
    "gpu_bus_id": ("bus_id", word),
    "vbios_version": ("vbios_version", word),
    "compute_mode": ("compute_mode", word),
    "pstate": ("performance_state", word),
    "persistence_mode": ("persistence_mode", word),
    "mig.mode.current": ("mig_mode", word),
    "ecc.mode.current": ("ecc_mode", word),
    "memory.total": ("memory_total_mib", whole_amount),
    "memory.reserved": ("memory_reserved_mib", whole_amount),
    "memory.used": ("memory_used_mib", whole_amount),
    "memory.free": ("memory_free_mib", whole_amount),
    "power.limit": ("power_limit_w", amount),
    "enforced.power.limit": ("power_limit_w", amount),
    "power.default_limit": ("power_default_limit_w", amount),
    "power.min_limit": ("power_min_limit_w", amount),
    "power.max_limit": ("power_max_limit_w", amount),
    "power.draw": ("power_draw_w", amount),
    "power.draw.average": ("power_draw_w", amount),
    "power.draw.instant": ("power_draw_w", amount),
    "temperature.gpu": ("temperature_c", amount),
    "utilization.gpu": ("utilization_gpu_percent", amount),
    "utilization.memory": ("utilization_memory_percent", amount),
    "clocks.max.graphics": ("max_graphics_clock_mhz", whole_amount),
    "clocks.max.gr": ("max_graphics_clock_mhz", whole_amount),
    "clocks.max.sm": ("max_sm_clock_mhz", whole_amount),
    "clocks.max.memory": ("max_memory_clock_mhz", whole_amount),
    "clocks.max.mem": ("max_memory_clock_mhz", whole_amount),
}
CSV_TOP: dict[str, tuple[str, Convert]] = {"driver_version": ("driver_version", word), "count": ("attached_gpus", whole_amount)}
# Fields a header may name that this reader knows but does not read (a time series' clock, live clocks, fans).
CSV_KNOWN = frozenset(
    "timestamp fan.speed temperature.memory clocks.current.graphics clocks.gr clocks.current.sm clocks.sm clocks.current.memory clocks.mem "
    "clocks.current.video clocks.video clocks_event_reasons.active display_mode display_active accounting.mode pcie.link.gen.current "
    "pcie.link.gen.max pcie.link.width.current pcie.link.width.max driver_model.current power.management encoder.stats.sessionCount "
    "utilization.encoder utilization.decoder memory.used.percent".split()
)
# Fields other tools' CSVs name too.
_GENERIC = frozenset({"index", "name", "count", "timestamp", "serial", "uuid", "pstate"})
_HEADER_CELL = re.compile(r"^(?P<field>[a-z][a-z0-9_.]{1,60})(?: \[[^\]]{1,20}\])?$")


def _header(line: str) -> list[str] | None:
    """The --query-gpu fields a CSV header line names, or ``None`` when it is no such header."""
    cells = [cell.strip() for cell in line.split(",")]
    fields = []
    for cell in cells:
        match = _HEADER_CELL.match(cell)
        if match is None or not (match["field"] in CSV_FIELDS or match["field"] in CSV_TOP or match["field"] in CSV_KNOWN):
            return None
        fields.append(match["field"])
    # Another tool's CSV may name an index, a name or a count: one field only nvidia-smi names must be there.
    if all(field in _GENERIC for field in fields):
        return None
    return fields


def _evident(cell: str) -> str | None:
    """The --query-gpu field a cell of a header-less row is, when its value alone says so."""
    if UUID.match(cell):
        return "uuid"
    if BUS_ID.match(cell):
        return "pci.bus_id"
    if GPU_PRODUCT.fits(cell) and " " in cell:
        return "name"
    if DRIVER_VERSION.fits(cell) and cell.count(".") == 2:
        return "driver_version"
    return None


def _row(fields: list[str] | None, cells: list[str], top: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """One row's GPU fields (driver version and count go to ``top``) and how many of its cells were not read."""
    row: dict[str, Any] = {}
    unread = 0
    for at, cell in enumerate(cells):
        name = _evident(cell) if fields is None else (fields[at] if at < len(fields) else None)
        if name in CSV_TOP:
            put(top, CSV_TOP[name], cell)
        elif name in CSV_FIELDS:
            put(row, CSV_FIELDS[name], cell)
        elif name not in CSV_KNOWN and not ABSENT.match(cell):
            unread += 1
    return row, unread


def read_csv(lines: Iterable[str], path: str) -> NvidiaSmi:
    """The rows of ``nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]``."""
    top: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    fields: list[str] | None = None
    unread = not_kept = 0
    first = True
    for line in cleaned(lines):
        if not line.strip():
            continue
        if first:
            first = False
            fields = _header(line)
            if fields is not None:
                continue
        row, missed = _row(fields, [cell.strip() for cell in line.split(",")], top)
        unread += missed
        if len(rows) < MAX_ROWS:
            rows.append(row)
        else:
            not_kept += 1
    return record(top, rows, not_kept=not_kept, unread=unread)


def recognises_csv(path: str, head: str) -> bool:
    """A --query-gpu CSV: a header of --query-gpu fields, or header-less rows that each hold a GPU UUID or product name."""
    lines = [line for line in head.splitlines()[:200] if line.strip()]
    if not lines:
        return False
    if _header(lines[0]) is not None:
        return True
    # The last line of the head may be cut short; every other must hold a GPU's UUID or product name.
    whole_lines = lines[:-1] or lines
    evident = [{_evident(cell.strip()) for cell in line.split(",")} for line in whole_lines]
    return all(found & {"uuid", "name"} for found in evident) and len({line.count(",") for line in whole_lines}) == 1


CSV_READER = FormatReader(
    name="nvidia-smi-csv",
    summary="nvidia-smi --query-gpu=... --format=csv (noheader, nounits too): one GPU reading per row",
    record=NvidiaSmi,
    recognises=recognises_csv,
    read=read_csv,
    examples=(
        Example(
            text=(
                "name, uuid, memory.total [MiB], power.limit [W]\n"
                "NVIDIA H100 80GB HBM3, GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0, 81559 MiB, 700.00 W\n"
            ),
            path="logs/gpus.csv",
            expect={
                "gpus": [
                    {
                        "product": "NVIDIA H100 80GB HBM3",
                        "uuid": "GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
                        "memory_total_mib": 81559,
                        "power_limit_w": 700.0,
                    }
                ]
            },
        ),
        Example(
            text="0, NVIDIA H100 80GB HBM3, GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0, 570.133.20, 81559, 700.00\n",
            path="logs/gpus.csv",
            expect={
                "driver_version": "570.133.20",
                "gpus": [{"product": "NVIDIA H100 80GB HBM3", "uuid": "GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"}],
                "cells_unread": 3,
            },
        ),
    ),
)
