"""What ``nvidia-smi`` states about a machine's GPUs: product, memory, power, driver public; UUID, serial, bus id identities.

Read by ``redact/formats/nvidia_smi.py`` from ``nvidia-smi -q`` and from ``nvidia-smi --query-gpu=...
--format=csv`` (with or without ``noheader`` and ``nounits``). A bus id, a board id and a part
number are identities of kind ``value``: none names a GPU the way its UUID does, but each is
specific to one board or slot of one machine, so they are pseudonymised, never published.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, NonNegativeInt

from ..publication import PUBLIC, IdentityKind, identity
from .base import FormatRecord, Number, Value, Whole
from .shapes import CudaVersion, DriverVersion, GpuProduct, IdentityText, SmiTimestamp, Vbios
from .vocabulary import ComputeMode

__all__ = ["GpuArchitecture", "GpuBrand", "NvidiaGpu", "NvidiaSmi", "OnOff", "PerformanceState"]

GpuBrand = Literal[
    "NVIDIA",
    "NVIDIA RTX",
    "Tesla",
    "Quadro",
    "Quadro RTX",
    "GeForce",
    "Titan",
    "TITAN",
    "GRID",
    "NVS",
    "NVIDIA Virtual Applications",
    "NVIDIA Virtual PC",
    "NVIDIA Virtual Compute Server",
    "NVIDIA Virtual Workstation",
    "NVIDIA Cloud Gaming",
    "Unknown",
]
GpuArchitecture = Literal["Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell", "Unknown"]
OnOff = Literal["Enabled", "Disabled"]
PerformanceState = Literal["P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P11", "P12", "P13", "P14", "P15", "Unknown"]

_OnOff = Annotated[OnOff | None, PUBLIC]


class NvidiaGpu(FormatRecord):
    """One GPU (``-q``: one ``GPU 00000000:01:00.0`` section; CSV: one row)."""

    index: Whole = None
    product: Annotated[GpuProduct | None, PUBLIC] = None
    brand: Annotated[GpuBrand | None, PUBLIC] = None
    architecture: Annotated[GpuArchitecture | None, PUBLIC] = None
    vbios_version: Annotated[Vbios | None, PUBLIC] = None
    compute_mode: Annotated[ComputeMode | None, PUBLIC] = None
    performance_state: Annotated[PerformanceState | None, PUBLIC] = None
    persistence_mode: _OnOff = None
    mig_mode: _OnOff = None
    ecc_mode: _OnOff = None
    minor_number: Whole = None
    module_id: Whole = None
    memory_total_mib: Whole = None
    memory_reserved_mib: Whole = None
    memory_used_mib: Whole = None
    memory_free_mib: Whole = None
    power_limit_w: Number = Field(default=None, description="the limit in force: 'Current Power Limit', older 'Power Limit', CSV power.limit")
    power_default_limit_w: Number = None
    power_min_limit_w: Number = None
    power_max_limit_w: Number = None
    power_draw_w: Number = None
    temperature_c: Annotated[float | None, PUBLIC] = None
    utilization_gpu_percent: Number = None
    utilization_memory_percent: Number = None
    max_graphics_clock_mhz: Whole = None
    max_sm_clock_mhz: Whole = None
    max_memory_clock_mhz: Whole = None
    processes: Whole = Field(default=None, description="processes listed under 'Processes' (their names and ids are not read)")

    uuid: Annotated[IdentityText | None, identity(IdentityKind.GPU)] = None
    serial: Annotated[IdentityText | None, identity(IdentityKind.SERIAL)] = None
    bus_id: Value = None
    board_id: Value = None
    board_part_number: Value = None
    gpu_part_number: Value = None
    fabric_cluster_uuid: Value = None


class NvidiaSmi(FormatRecord):
    """One ``nvidia-smi -q`` report, or one ``--query-gpu`` CSV (a row per GPU per sample)."""

    timestamp: Annotated[SmiTimestamp | None, PUBLIC] = None
    driver_version: Annotated[DriverVersion | None, PUBLIC] = None
    cuda_version: Annotated[CudaVersion | None, PUBLIC] = None
    attached_gpus: Whole = None
    gpus: list[NvidiaGpu] = Field(default_factory=list)
    rows_not_kept: Annotated[NonNegativeInt, PUBLIC] = Field(
        default=0, description="GPU rows past the first 10,000 (a long -l loop): counted, not kept"
    )
    cells_unread: Annotated[NonNegativeInt, PUBLIC] = Field(
        default=0, description="CSV cells of a field this reader does not know, or cannot tell without a header"
    )
    values_withheld: Annotated[NonNegativeInt, PUBLIC] = Field(default=0, description="values whose shape no public field admits")
