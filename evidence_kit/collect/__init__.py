"""The collector: drive A/B/A trials against OpenAI-compatible engines and write native journals."""

from .plan import Plan, load_plan
from .progress import Progress, RichProgress
from .trial_runner import TrialResult, collect_trial

__all__ = ["Plan", "Progress", "RichProgress", "TrialResult", "collect_trial", "load_plan"]
