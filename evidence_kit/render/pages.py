"""Every generated file of one decision: pages, charts, chart data, analysis, evidence copies.

:func:`decision_files` returns ``{path under the docs folder: bytes}`` and writes
nothing, so the site builder can render everything before it touches the disk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jinja2

from ..analyze.report import Analysis, TrialAnalysis, analysis_json
from ..model.evidence import DecisionEvidence
from ..present import count, ratio, reconciled_text, seconds, setup_rows, simulated_sentence
from .chart_data import interval_rows, per_run_rows, rows_csv, rows_json, telemetry_rows, ttft_rows
from .charts import Chart, trial_charts
from .escape import Markup
from .evidence_copy import EvidenceFile, evidence_files, receipts, withheld_classes
from .markdown import link, render, table

__all__ = ["decision_files", "decision_folder", "DrawCharts"]

# What draws a trial's charts from its analysis and telemetry rows: :func:`.charts.trial_charts`, or a
# :class:`.chart_cache.ChartCache`'s, which reads back what it drew before.
DrawCharts = Callable[[TrialAnalysis, list[dict[str, Any]] | None], dict[str, Chart]]


def decision_folder(analysis: Analysis) -> str:
    """Where a decision lives in the docs folder: ``decisions/<id>``."""
    return f"decisions/{analysis.decision.id}"


def trial_folders(evidence: DecisionEvidence) -> dict[str, str]:
    """trial_id -> the trial's folder as ``decision.toml`` names it: where its evidence is copied.

    A trial's folder need not be named after its ``trial_id``; links to its journals and
    telemetry follow the folder, as the copy under ``evidence/`` does.
    """
    return {t.trial.trial_id: name for name, t in zip(evidence.decision.trials, evidence.trials)}


def _index_rows(trial: TrialAnalysis, folder: str, prefix: str) -> list[list[Any]]:
    return [
        [
            str(a.seq),
            a.arm,
            a.phase,
            link(a.journal, f"{prefix}evidence/{folder}/{a.journal}"),
            f"{a.timed_ok}/{a.timed_planned}",
            str(a.warmup),
            reconciled_text(a),
            f"{a.gates_passed}/{a.gates_total}",
            Markup(f"`{a.sha256}`"),
        ]
        for a in trial.arms
    ]


def _chart_tables(trial: TrialAnalysis, samples: list[dict[str, Any]]) -> dict[str, Markup]:
    per_run = table(
        ["Group", "Arm", "Run", "Repetition", "p50 E2E s", "Journal sha256"],
        [
            [r["group"], r["arm_label"], r["run"], str(r["repetition"]), seconds(r["e2e_p50_s"]), r["journal_sha256"][:12]]
            for r in per_run_rows(trial)
        ],
    )
    intervals = table(
        ["Group", "Control", "Ratio", "95% low", "95% high", "Resolvable", "Verdict (colour)"],
        [
            [r["group"], r["control"], ratio(r["ratio"]), ratio(r["low"]), ratio(r["high"]), "yes" if r["resolvable"] else "no (n.s.)", r["verdict"]]
            for r in interval_rows(trial)
        ],
    )
    ttft = table(
        ["Group", "Metric", "Arm", "Pooled median s", "Requests"],
        [[r["group"], r["metric"], r["arm_label"], seconds(r["median_s"]), str(r["n"])] for r in ttft_rows(trial)],
    )
    telemetry = table(
        ["Arm", "t (s)", "Series", "Device", "Value as sampled"],
        [[r["arm_label"], str(r["t_s"]), r["series"], r["device"], str(r["value"])] for r in samples],
    )
    return {"per-run": per_run, "intervals": intervals, "ttft": ttft, "telemetry": telemetry}


def _dossier_rows(evidence: DecisionEvidence) -> dict[str, list[list[Any]]]:
    out: dict[str, list[list[Any]]] = {}
    for trial in evidence.trials:
        rows = []
        for arm in trial.arms:
            facts = {k: v for k, v in arm.header.engine.model_dump(mode="json").items() if v is not None}
            if arm.header.prompts is not None:
                facts["prompts"] = arm.header.prompts.model_dump()
            facts.update({k: v for k, v in (arm.header.model_extra or {}).items()})
            text = "; ".join(f"{k}: {v}" for k, v in sorted(facts.items())) or "none recorded"
            rows.append([str(arm.ref.seq), arm.ref.arm, arm.ref.role, arm.ref.phase, arm.ref.label or arm.ref.arm, text])
        out[trial.trial.trial_id] = rows
    return out


def _telemetry(files: list[EvidenceFile], folder: str) -> list[list[Any]]:
    prefix = f"{folder}/telemetry/"
    return [
        [link(f.path[len(folder) + 1 :], f"evidence/{f.path}"), count(f.size), Markup(f"`{f.sha256}`")] for f in files if f.path.startswith(prefix)
    ]


def decision_files(
    evidence: DecisionEvidence,
    analysis: Analysis,
    env: jinja2.Environment,
    *,
    base: str | None = None,
    methodology: str = "../../methodology.md",
    draw: DrawCharts = trial_charts,
) -> dict[str, bytes]:
    """Render every page and data file of one decision, keyed by path under the docs folder.

    ``base`` is the decision's folder (``decisions/<id>`` in a built site) and ``methodology``
    the decision page's link to the methodology page; the MkDocs plugin
    (:mod:`.embedded`) places a decision elsewhere. Every other link of a decision is inside it.
    ``draw`` draws each trial's charts (the same charts, however it gets them).
    """
    base = decision_folder(analysis) if base is None else base
    files = evidence_files(evidence)
    recs = receipts(evidence)
    samples = {t.trial_id: telemetry_rows(t, ev) for t, ev in zip(analysis.trials, evidence.trials)}
    charts: dict[str, dict[str, Chart]] = {t.trial_id: draw(t, samples[t.trial_id]) for t in analysis.trials}
    tables = {t.trial_id: _chart_tables(t, samples[t.trial_id]) for t in analysis.trials}
    withheld = withheld_classes(recs)
    folders = trial_folders(evidence)
    common: dict[str, Any] = {
        "d": evidence.decision,
        "a": analysis,
        "trials": list(zip(analysis.trials, evidence.trials)),
        "simulated": analysis.decision.simulated,
        "simulated_text": simulated_sentence(analysis),
        "withheld": withheld,
        "receipts": recs,
        "telemetry": {t.trial_id: _telemetry(files, folders[t.trial_id]) for t in analysis.trials},
        "charts": charts,
        "chart_tables": tables,
        "methodology": methodology,
    }
    out: dict[str, bytes] = {}
    out[f"{base}/index.md"] = render(
        env,
        "decision/index.md.j2",
        **common,
        setup=setup_rows(evidence, analysis, withheld),
    )
    out[f"{base}/artifacts.md"] = render(
        env,
        "decision/artifacts.md.j2",
        **common,
        artifact_rows=[[link(f.path, f"evidence/{f.path}"), count(f.size), Markup(f"`{f.sha256}`")] for f in files],
    )
    out[f"{base}/evidence-index.md"] = render(
        env,
        "decision/evidence-index.md.j2",
        **common,
        index_rows={t.trial_id: _index_rows(t, folders[t.trial_id], "") for t in analysis.trials},
    )
    out[f"{base}/dossier.md"] = render(env, "decision/dossier.md.j2", **common, dossier_rows=_dossier_rows(evidence))
    out[f"{base}/hardware.md"] = render(env, "decision/hardware.md.j2", **common)
    out[f"{base}/redaction.md"] = render(
        env,
        "decision/redaction.md.j2",
        **common,
        receipt_rows={
            tid: [[f, cls, str(n)] for f, per_class in sorted(r.counts.items()) for cls, n in sorted(per_class.items())]
            for tid, r in recs.items()
            if r
        },
    )
    out[f"{base}/analysis.json"] = analysis_json(analysis).encode()  # byte for byte what analyze --json prints
    for trial in analysis.trials:
        tdir = f"{base}/{trial.trial_id}"
        trial_ctx = dict(common, t=trial, charts=charts[trial.trial_id], chart_tables=tables[trial.trial_id], simulated=trial.simulated)
        out[f"{tdir}/summary.md"] = render(
            env,
            "decision/summary.md.j2",
            **trial_ctx,
            index_rows=_index_rows(trial, folders[trial.trial_id], "../"),
        )
        out[f"{tdir}/per-run.md"] = render(env, "decision/per-run.md.j2", **trial_ctx)
        out[f"{tdir}/chart-data.md"] = render(
            env,
            "decision/chart-data.md.j2",
            **trial_ctx,
            source_rows=[
                [a.phase, link(a.journal, f"../evidence/{folders[trial.trial_id]}/{a.journal}"), count(a.size), Markup(f"`{a.sha256}`")]
                for a in trial.arms
            ],
        )
        rows = per_run_rows(trial)
        out[f"{tdir}/per-run.csv"] = rows_csv(rows)
        out[f"{tdir}/per-run.json"] = rows_json(trial, rows)
        for name, chart in charts[trial.trial_id].items():
            out[f"{tdir}/{name}.svg"] = chart.svg
    for f in files:
        out[f"{base}/evidence/{f.path}"] = f.data
    return out
