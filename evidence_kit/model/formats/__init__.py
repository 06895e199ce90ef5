"""The typed records format readers build from raw free-text evidence (``redact/formats/``).

Every field declares its publication class; every public string is a word of a closed
vocabulary or a value of a strict shape (``shapes.py``, ``vocabulary.py``), so a record cannot
carry an operator's string into a public field whatever text it was read from.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import FormatRecord
    from .docker import DockerContainer, DockerInspect
    from .kubernetes import ContainerState, KubeContainer, KubePod, KubePods, PodCondition
    from .nvidia import NvidiaGpu, NvidiaSmi
    from .prometheus import LABELS, METRICS, LabelRule, PrometheusScrape, Sample
    from .vllm import KvCacheFacts, LogCounts, SpeculativeSettings, VllmSettings, VllmStartup

# Each name's module, imported on first use: the contract's models import this package for its shapes
# (``shapes.py``, ``vocabulary.py``), and building every format's models cost ``verify`` a tenth of a second.
_HOME = {
    "FormatRecord": "base",
    **dict.fromkeys(("DockerContainer", "DockerInspect"), "docker"),
    **dict.fromkeys(("ContainerState", "KubeContainer", "KubePod", "KubePods", "PodCondition"), "kubernetes"),
    **dict.fromkeys(("NvidiaGpu", "NvidiaSmi"), "nvidia"),
    **dict.fromkeys(("LABELS", "METRICS", "LabelRule", "PrometheusScrape", "Sample"), "prometheus"),
    **dict.fromkeys(("KvCacheFacts", "LogCounts", "SpeculativeSettings", "VllmSettings", "VllmStartup"), "vllm"),
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)


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
