"""The typed records format readers build from raw free-text evidence (``redact/formats/``).

Every field declares its publication class; every public string is a word of a closed
vocabulary or a value of a strict shape (``shapes.py``, ``vocabulary.py``), so a record cannot
carry an operator's string into a public field whatever text it was read from.
"""

from __future__ import annotations

from .base import FormatRecord
from .docker import DockerContainer, DockerInspect
from .kubernetes import ContainerState, KubeContainer, KubePod, KubePods, PodCondition
from .nvidia import NvidiaGpu, NvidiaSmi
from .prometheus import LABELS, METRICS, LabelRule, PrometheusScrape, Sample
from .vllm import KvCacheFacts, LogCounts, SpeculativeSettings, VllmSettings, VllmStartup

__all__ = [
    "LABELS",
    "METRICS",
    "ContainerState",
    "DockerContainer",
    "DockerInspect",
    "FormatRecord",
    "KubeContainer",
    "KubePod",
    "KubePods",
    "KvCacheFacts",
    "LabelRule",
    "LogCounts",
    "NvidiaGpu",
    "NvidiaSmi",
    "PodCondition",
    "PrometheusScrape",
    "Sample",
    "SpeculativeSettings",
    "VllmSettings",
    "VllmStartup",
]
