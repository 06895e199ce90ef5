"""Chart data: every plotted point with the sha256 of the journal it came from.

Rows are read off the :class:`~evidence_kit.analyze.report.TrialAnalysis`; nothing
is computed here. The same rows feed the charts, the data tables beside them and
the published ``per-run.csv`` / ``per-run.json`` files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..analyze.report import TrialAnalysis
from ..canonical import canonical_json
from ..model.evidence import TrialEvidence
from ..model.telemetry import EngineSample, GpuSample, Reading
from ..present import arm_label_map, phase_labels, threshold_labels
from ..spreadsheet import csv_bytes

__all__ = [
    "telemetry_rows",
    "TELEMETRY_SERIES",
    "GPU_SERIES",
    "phase_labels",
    "group_labels",
    "per_run_rows",
    "interval_rows",
    "threshold_rows",
    "ttft_rows",
    "rows_csv",
    "rows_json",
]

PER_RUN_FIELDS = (
    "trial_id",
    "group",
    "input_nominal",
    "concurrency",
    "phase",
    "arm_label",
    "run",
    "repetition",
    "requests",
    "ok",
    "reconciled",
    "e2e_p50_s",
    "e2e_p90_s",
    "e2e_p99_s",
    "journal",
    "journal_sha256",
)


def group_labels(trial: TrialAnalysis) -> dict[tuple[int, int | float | None], str]:
    """(input_nominal, concurrency or rate) -> '~6K/C4', '~6K/R2.0'."""
    return {(g.input_nominal, g.concurrency if g.rate is None else g.rate): g.label for g in trial.groups}


def per_run_rows(trial: TrialAnalysis) -> list[dict[str, Any]]:
    """One row per run: its nearest-rank percentiles and its journal's hash, in journal order."""
    arms = {a.seq: a for a in trial.arms}
    labels = arm_label_map(trial)
    groups = group_labels(trial)
    rows = []
    for run in trial.runs:
        e2e = run.percentiles["e2e_s"]
        rows.append(
            {
                "trial_id": trial.trial_id,
                "group": groups[(run.input_nominal, run.concurrency if run.rate is None else run.rate)],
                "input_nominal": run.input_nominal,
                "concurrency": run.concurrency,
                "phase": run.phase,
                "arm_label": labels[run.seq],
                "run": run.run,
                "repetition": run.repetition,
                "requests": run.requests,
                "ok": run.ok,
                "reconciled": run.reconciled,
                "e2e_p50_s": e2e["p50"],
                "e2e_p90_s": e2e["p90"],
                "e2e_p99_s": e2e["p99"],
                "journal": arms[run.seq].journal,
                "journal_sha256": arms[run.seq].sha256,
            }
        )
    return rows


def interval_rows(trial: TrialAnalysis) -> list[dict[str, Any]]:
    """One row per group and control: the run-level interval of the decision metric's ratio and the group's verdict."""
    rows = []
    for g in trial.groups:
        for interval in g.intervals:
            rows.append(
                {
                    "group": g.label,
                    "control": "vs drift-corrected" if interval.control == "corrected" else f"vs original {interval.control}",
                    "ratio": interval.ratio,
                    "low": interval.low,
                    "high": interval.high,
                    "resolvable": interval.resolvable,
                    "verdict": g.verdict.verdict,
                }
            )
    return rows


def threshold_rows(trial: TrialAnalysis) -> list[dict[str, Any]]:
    """The interval chart's lines: the rule's threshold as a ratio either way (from the analysis) and no change."""
    return [{"ratio": value, "line": words} for value, words in threshold_labels(trial)]


def ttft_rows(trial: TrialAnalysis) -> list[dict[str, Any]]:
    """Pooled median TTFT and visible-content TTFT per group and arm."""
    names = {"ttft_s": "TTFT (first token)", "ttft_content_s": "Visible-content TTFT"}
    labels = phase_labels(trial)
    rows = []
    for g in trial.groups:
        for metric, name in names.items():
            for phase, label in labels.items():
                pooled = g.pooled[metric][phase]
                rows.append({"group": g.label, "metric": name, "arm_label": label, "median_s": pooled.median, "n": pooled.n})
    return rows


# Chart series (in the chart's order) -> its value in a sample's engine section, or in one GPU row.
TELEMETRY_SERIES: dict[str, Callable[[EngineSample], Reading | None]] = {
    "running requests": lambda engine: engine.running,
    "waiting requests": lambda engine: engine.waiting,
    "KV cache usage": lambda engine: engine.kv_usage,
}
GPU_SERIES: dict[str, Callable[[GpuSample], Reading | None]] = {
    "GPU memory used (MiB)": lambda gpu: gpu.memory_used,
    "GPU memory free (MiB)": lambda gpu: gpu.memory_free,
    "GPU power (W)": lambda gpu: gpu.power_draw,
    "GPU utilisation (%)": lambda gpu: gpu.utilization_gpu,
}


def _device(gpu: GpuSample, position: int) -> str:
    index = gpu.index
    return f"GPU {int(index)}" if index is not None and float(index).is_integer() else f"GPU #{position}"


def telemetry_rows(trial: TrialAnalysis, evidence: TrialEvidence) -> list[dict[str, Any]]:
    """Engine gauges and per-GPU series as sampled, one row per sample, series and device, arm by
    arm in run order (``device`` is ``engine`` or ``GPU <index>`` as ``nvidia-smi`` numbers it).

    The samples are the ones the loader read (and validated) from each arm's
    ``telemetry/<journal name>``, the same ``analyze`` summarised; values are copied as recorded.
    """
    labels = arm_label_map(trial)
    rows: list[dict[str, Any]] = []
    for arm in evidence.arms:
        for sample in arm.telemetry or ():
            base = {"arm_label": labels[arm.ref.seq], "t_s": sample.t_s}
            if sample.engine is not None:
                for name, read in TELEMETRY_SERIES.items():
                    value = read(sample.engine)
                    if value is not None:
                        rows.append({**base, "series": name, "device": "engine", "value": value})
            for position, gpu in enumerate(sample.gpus or ()):
                for name, read_gpu in GPU_SERIES.items():
                    value = read_gpu(gpu)
                    if value is not None:
                        rows.append({**base, "series": name, "device": _device(gpu, position), "value": value})
    return rows


def rows_csv(rows: list[dict[str, Any]], fields: tuple[str, ...] = PER_RUN_FIELDS) -> bytes:
    """CSV with a header row, full-precision numbers and formula-like texts guarded
    (:func:`evidence_kit.spreadsheet.csv_bytes`)."""
    return csv_bytes(rows, fields)


def rows_json(trial: TrialAnalysis, rows: list[dict[str, Any]]) -> bytes:
    """The chart data as JSON: the source journals with their hashes, then the points."""
    doc = {
        "schema": "evidence-kit/chart-data/v1",
        "trial_id": trial.trial_id,
        "aggregation": "nearest-rank percentiles of the ok timed requests of each run",
        "sources": [{"phase": a.phase, "journal": a.journal, "sha256": a.sha256, "size": a.size} for a in trial.arms],
        "points": rows,
    }
    return canonical_json(doc)
