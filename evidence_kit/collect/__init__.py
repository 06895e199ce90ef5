"""The collector: drive A/B/A trials against OpenAI-compatible engines and write native journals.

Its names are loaded when first used, so a worker process (``python -m evidence_kit.collect.worker_process``),
which streams requests and needs none of the plan, the shapes or the analysis, does not import them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .plan import Plan, load_plan
    from .progress import Progress, RichProgress
    from .trial_runner import TrialResult, collect_trial

__all__ = ["Plan", "Progress", "RichProgress", "TrialResult", "collect_trial", "load_plan"]

_WHERE = {"Plan": "plan", "load_plan": "plan", "Progress": "progress", "RichProgress": "progress", "TrialResult": "trial_runner"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE.get(name, 'trial_runner')}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
