"""evidence-kit: turn LLM-serving A/B/A experiments into decisions anyone can check.

The package root is the Python API's front door: ``evidence_kit.open(path)`` (see
:mod:`evidence_kit.api`), loaded only when it is first used, so importing any part of the
package costs nothing more.
"""

from __future__ import annotations

import importlib
from typing import Any

from .version import __version__

__all__ = ["__version__", "open", "Evidence"]


def __getattr__(name: str) -> Any:
    if name in ("open", "Evidence"):
        return getattr(importlib.import_module("evidence_kit.api"), name)
    raise AttributeError(f"module 'evidence_kit' has no attribute {name!r}")
