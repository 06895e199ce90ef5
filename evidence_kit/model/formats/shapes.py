"""Strict shapes of the format records' public strings, and the bounded text of their identities.

A public string of a format record is a word of a closed vocabulary (``vocabulary.py``) or a value
of one of these shapes: versions, timestamps, quantities, product names. Each shape is anchored
and admits only digits, a few fixed words and separators, so a value that fits cannot spell a
host, a path, a user or a model: ``Version`` admits ``0.11.0+cu128`` and ``0.6.4.dev12+g1a2b3c4``
but not ``0.11.0+jdoe``. The shape is part of the field's type, so the record itself refuses a
value of another shape, whichever reader built it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated

from pydantic import StringConstraints

__all__ = [
    "SHAPES",
    "GpuProduct",
    "IdentityText",
    "KubeQuantity",
    "KubeResource",
    "LogStamp",
    "NumberText",
    "Rfc3339",
    "Shape",
    "SmiTimestamp",
    "Vbios",
    "Version",
    "DriverVersion",
    "CudaVersion",
    "SMALL_INT",
    "Words",
    "shape_of",
]


@dataclass(frozen=True)
class Shape:
    """A public string's shape: its name, its anchored pattern and what it admits, for the docs."""

    name: str
    pattern: str
    admits: str

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern)

    def fits(self, value: str) -> bool:
        return self.compiled.fullmatch(value) is not None


def _shape(name: str, pattern: str, admits: str) -> Shape:
    return Shape(name, pattern, admits)


# A local version label is one of the build tags engines ship with, or a git commit of the engine itself.
_LOCAL = r"(?:cpu|cu[0-9]{2,3}|rocm[0-9]{1,2}(?:\.[0-9]{1,2}){0,2}|xpu|tpu|hpu|neuron|simulated|precompiled|g[0-9a-f]{7,12}|d[0-9]{8})"
VERSION = _shape(
    "version",
    rf"^[0-9]{{1,4}}(?:\.[0-9]{{1,6}}){{0,3}}(?:(?:a|b|rc)[0-9]{{1,4}})?(?:\.post[0-9]{{1,4}})?(?:\.dev[0-9]{{1,8}})?(?:\+{_LOCAL}(?:\.{_LOCAL}){{0,3}})?$",
    "a release number of up to four parts, a pre-, post- or dev-release, and a build tag (cpu, cu128, rocm6.2, simulated, a git commit)",
)
DRIVER_VERSION = _shape("driver version", r"^[0-9]{2,3}\.[0-9]{1,3}(?:\.[0-9]{1,3}){0,2}$", "two to four numbers: 580.82.07")
CUDA_VERSION = _shape("CUDA version", r"^[0-9]{1,2}\.[0-9]{1,2}$", "two numbers: 12.8")
VBIOS = _shape("VBIOS version", r"^[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f]{2}){3,5}$", "four to six two-digit hex numbers: 96.00.5E.00.01")
LOG_STAMP = _shape("log time", r"^[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?$", "vLLM's month-day and time: 12-03 13:27:02")
RFC3339 = _shape(
    "timestamp",
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$",
    "an RFC 3339 time: 2026-11-01T09:00:00Z",
)
SMI_TIMESTAMP = _shape(
    "nvidia-smi time",
    r"^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ [0-9]][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}$",
    "C's asctime: Thu Jan 30 16:14:43 2025",
)
SMALL_INT = _shape("small whole number", r"^[0-9]{1,6}$", "up to six digits: an engine, a GPU index, a draft position")
NUMBER_TEXT = _shape(
    "number", r"^(?:[+-]?(?:[0-9]{1,32}(?:\.[0-9]{0,32})?|\.[0-9]{1,32})(?:[eE][+-]?[0-9]{1,3})?|[+-]?Inf|NaN)$", "a decimal number, +Inf or NaN"
)
KUBE_QUANTITY = _shape(
    "Kubernetes quantity",
    r"^[+-]?(?:[0-9]{1,18}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})(?:[eE][+-]?[0-9]{1,3}|[numkMGTPE]|[KMGTPE]i)?$",
    "a number and an SI or binary suffix: 500m, 16Gi",
)
KUBE_RESOURCE = _shape(
    "Kubernetes resource",
    r"^(?:cpu|memory|ephemeral-storage|pods|storage|hugepages-[0-9]{1,4}[KMG]i|nvidia\.com/gpu(?:\.shared)?|nvidia\.com/mig-[0-9]{1,2}g\.[0-9]{1,4}gb|"
    r"amd\.com/gpu|intel\.com/gpu|gpu\.intel\.com/i915|habana\.ai/gaudi|aws\.amazon\.com/neuron(?:core|device)?|google\.com/tpu|"
    r"rdma/(?:hca|rdma_shared_device_a)|nvidia\.com/(?:hostdev|rdma_shared_device_a))$",
    "cpu, memory, ephemeral-storage, hugepages-2Mi and the GPU and accelerator resources of NVIDIA, AMD, Intel, Habana, AWS and Google",
)
# A product name opens with NVIDIA's brand and goes on in words of its product line, model codes
# (H100, A100, L40S, 4090) and sizes (80GB): a code is at most four capitals, five digits and three letters.
_PRODUCT_WORD = (
    r"(?:RTX|PRO|GTX|GT|Ti|SUPER|Blackwell|Hopper|Ada|Ampere|Turing|Volta|Generation|Max-Q|Workstation|Server|Edition|Laptop|"
    r"GPU|PCIe|PCIE|SXM[0-9]?|NVL[0-9]{0,2}|HBM[0-9]?e?|MIG|GeForce|Quadro|Tesla|TITAN|GRID|DGX|Spark|Xp|X|Mobile|Embedded|Orin|Thor|"
    r"[0-9]{1,2}g\.[0-9]{1,4}gb|[A-Z]{1,4}[0-9]{1,5}[A-Za-z]{0,3}|[0-9]{1,5}(?:[GMT]B)?)"
)
GPU_PRODUCT = _shape(
    "GPU product",
    rf"^(?:NVIDIA|Tesla|Quadro|GeForce|TITAN|GRID)(?: {_PRODUCT_WORD}(?:-{_PRODUCT_WORD}){{0,4}}){{0,10}}$",
    "NVIDIA's brand, then words of its product line, model codes and sizes: NVIDIA H100 80GB HBM3, Tesla V100-SXM2-32GB",
)

SHAPES: tuple[Shape, ...] = (
    VERSION,
    DRIVER_VERSION,
    CUDA_VERSION,
    VBIOS,
    LOG_STAMP,
    RFC3339,
    SMI_TIMESTAMP,
    SMALL_INT,
    NUMBER_TEXT,
    KUBE_QUANTITY,
    KUBE_RESOURCE,
    GPU_PRODUCT,
)


Version = Annotated[str, StringConstraints(pattern=VERSION.pattern, max_length=64), VERSION]
DriverVersion = Annotated[str, StringConstraints(pattern=DRIVER_VERSION.pattern), DRIVER_VERSION]
CudaVersion = Annotated[str, StringConstraints(pattern=CUDA_VERSION.pattern), CUDA_VERSION]
Vbios = Annotated[str, StringConstraints(pattern=VBIOS.pattern), VBIOS]
LogStamp = Annotated[str, StringConstraints(pattern=LOG_STAMP.pattern), LOG_STAMP]
Rfc3339 = Annotated[str, StringConstraints(pattern=RFC3339.pattern), RFC3339]
SmiTimestamp = Annotated[str, StringConstraints(pattern=SMI_TIMESTAMP.pattern), SMI_TIMESTAMP]
NumberText = Annotated[str, StringConstraints(pattern=NUMBER_TEXT.pattern, max_length=80), NUMBER_TEXT]
KubeQuantity = Annotated[str, StringConstraints(pattern=KUBE_QUANTITY.pattern, max_length=40), KUBE_QUANTITY]
KubeResource = Annotated[str, StringConstraints(pattern=KUBE_RESOURCE.pattern, max_length=64), KUBE_RESOURCE]
GpuProduct = Annotated[str, StringConstraints(pattern=GPU_PRODUCT.pattern, max_length=120), GPU_PRODUCT]

# An identity's raw text (the redactor publishes its pseudonym): one line of bounded length.
IDENTITY_MAX = 4096
IdentityText = Annotated[str, StringConstraints(min_length=1, max_length=IDENTITY_MAX, pattern=r"^[^\r\n]*$")]


@dataclass(frozen=True)
class Words:
    """A closed vocabulary given as data (too long, or built from a registry, to be a ``Literal``).

    ``suffixes`` are endings a word may carry and still be the word: a Prometheus family
    ``vllm:prompt_tokens`` is sampled as ``vllm:prompt_tokens_total`` and ``..._created``.
    """

    name: str
    words: frozenset[str]
    admits: str
    suffixes: tuple[str, ...] = ()

    def fits(self, value: str) -> bool:
        for _ in range(3):
            if value in self.words:
                return True
            base = next((value[: -len(s)] for s in self.suffixes if value.endswith(s) and len(value) > len(s)), None)
            if base is None:
                return False
            value = base
        return False

    def __call__(self, value: str) -> str:
        if not self.fits(value):
            raise ValueError(f"not a word of the {self.name} vocabulary")
        return value


def shape_of(metadata: tuple[object, ...] | list[object]) -> Shape | None:
    """The shape among a field's ``Annotated`` metadata, or ``None``."""
    return next((m for m in metadata if isinstance(m, Shape)), None)
