"""The statistics and decision engine: pure functions of in-memory evidence, no I/O.

The site builder renders what :func:`analyze` returns and the auditor reruns it,
so every published figure is ``analyze(journals)`` and nothing else.
"""

from .decision import DEFINITIONS, DEFINITIONS_V4, analyze, definitions_for, statistics_version
from .report import ANALYSIS_SCHEMA, Analysis, TrialAnalysis, analysis_json
from .stats import bootstrap_ratio_interval, change, median, nearest_rank
from .trial import analyze_trial

__all__ = [
    "ANALYSIS_SCHEMA",
    "Analysis",
    "DEFINITIONS",
    "DEFINITIONS_V4",
    "definitions_for",
    "statistics_version",
    "TrialAnalysis",
    "analyze",
    "analysis_json",
    "analyze_trial",
    "bootstrap_ratio_interval",
    "change",
    "median",
    "nearest_rank",
]
