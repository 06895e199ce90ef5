"""Every generated file of one decision: pages, charts, chart data, analysis, evidence copies.

:func:`decision_files` returns ``{path under the docs folder: bytes}`` and writes
nothing, so the site builder can render everything before it touches the disk.
"""

from __future__ import annotations

from typing import Any

import jinja2

from ..analyze.report import Analysis, TrialAnalysis, analysis_json
from ..format import count, ratio, seconds
from ..model.evidence import DecisionEvidence
from .chart_data import interval_rows, per_run_rows, phase_labels, rows_csv, rows_json, telemetry_rows, ttft_rows
from .charts import Chart, trial_charts
from .decision_rows import (
    ENGINE_KINDS,
    comparison_table,
    headline_rows,
    input_ranges,
    metric_table,
    pooled_sizes,
    prose_sections,
    restored_ok,
    setup_rows,
)
from .escape import Markup
from .evidence_copy import EvidenceFile, evidence_files, receipts, withheld_classes
from .markdown import link, render, table

__all__ = ["decision_files", "decision_folder"]


def decision_folder(analysis: Analysis) -> str:
    """Where a decision lives in the docs folder: ``decisions/<id>``."""
    return f"decisions/{analysis.decision.id}"


def _index_rows(trial: TrialAnalysis, prefix: str) -> list[list[Any]]:
    return [
        [str(a.seq), a.arm, a.phase, link(a.journal, f"{prefix}evidence/{trial.trial_id}/{a.journal}"),
         f"{a.timed_ok}/{a.timed_planned}", str(a.warmup), f"{a.runs_reconciled}/{a.runs_total}",
         f"{a.gates_passed}/{a.gates_total}", Markup(f"`{a.sha256}`")]
        for a in trial.arms
    ]


def _chart_tables(trial: TrialAnalysis, samples: list[dict[str, Any]]) -> dict[str, Markup]:
    per_run = table(
        ["Group", "Arm", "Run", "Repetition", "p50 E2E s", "Journal sha256"],
        [[r["group"], r["arm_label"], r["run"], str(r["repetition"]), seconds(r["e2e_p50_s"]), r["journal_sha256"][:12]]
         for r in per_run_rows(trial)],
    )
    intervals = table(
        ["Group", "Control", "Ratio", "95% low", "95% high", "Resolvable"],
        [[r["group"], r["control"], ratio(r["ratio"]), ratio(r["low"]), ratio(r["high"]),
          "yes" if r["resolvable"] else "no (n.s.)"] for r in interval_rows(trial)],
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


def _telemetry(files: list[EvidenceFile], trial_id: str) -> list[list[Any]]:
    prefix = f"{trial_id}/telemetry/"
    return [[link(f.path[len(trial_id) + 1:], f"evidence/{f.path}"), count(f.size), Markup(f"`{f.sha256}`")]
            for f in files if f.path.startswith(prefix)]


def _recorded(value: Any) -> str:
    """A recorded value as text: integers with separators, anything else as recorded."""
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "absent"}[value]
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return count(int(value))
    return str(value)


def telemetry_tables(analysis: Analysis) -> dict[str, list[list[str]]]:
    """trial_id -> rows (summary key, before, candidate, restored) of each arm's telemetry summary,
    as ``analyze`` recomputed it from the sampled series; empty when no arm has samples."""
    out: dict[str, list[list[str]]] = {}
    for trial in analysis.trials:
        summaries = [arm.telemetry.model_dump() if arm.telemetry else {} for arm in trial.arms]
        keys = sorted({k for summary in summaries for k in summary})
        out[trial.trial_id] = [[k.replace("_", " "), *(_recorded(s.get(k)) for s in summaries)] for k in keys]
    return out


def _simulated_text(analysis: Analysis) -> str:
    names = ", ".join(t.title for t in analysis.trials if t.simulated)
    return (f"Simulated evidence: {names} ran on a simulated engine (engine_kind simulated). Its numbers describe "
            "the simulator, not measurements of real hardware.")


def decision_files(evidence: DecisionEvidence, analysis: Analysis, env: jinja2.Environment) -> dict[str, bytes]:
    """Render every page and data file of one decision, keyed by path under the docs folder."""
    base = decision_folder(analysis)
    files = evidence_files(evidence)
    recs = receipts(evidence)
    samples = {t.trial_id: telemetry_rows(t, ev) for t, ev in zip(analysis.trials, evidence.trials)}
    charts: dict[str, dict[str, Chart]] = {t.trial_id: trial_charts(t, samples[t.trial_id]) for t in analysis.trials}
    tables = {t.trial_id: _chart_tables(t, samples[t.trial_id]) for t in analysis.trials}
    withheld = withheld_classes(recs)
    common: dict[str, Any] = {
        "d": evidence.decision,
        "a": analysis,
        "trials": list(zip(analysis.trials, evidence.trials)),
        "simulated": any(t.simulated for t in analysis.trials),
        "simulated_text": _simulated_text(analysis),
        "engine_kinds": ENGINE_KINDS,
        "withheld": withheld,
        "receipts": recs,
        "telemetry": {t.trial_id: _telemetry(files, t.trial_id) for t in analysis.trials},
        "telemetry_tables": telemetry_tables(analysis),
        "charts": charts,
        "chart_tables": tables,
        "input_ranges": input_ranges,
        "pooled_sizes": pooled_sizes,
        "restored_ok": restored_ok,
        "metric_table": metric_table,
        "comparison_table": comparison_table,
    }
    out: dict[str, bytes] = {}
    out[f"{base}/index.md"] = render(
        env, "decision/index.md.j2", **common,
        setup_rows=setup_rows(evidence, analysis, recs), headline_rows=headline_rows(analysis),
        other_prose=prose_sections(evidence.decision),
    )
    out[f"{base}/artifacts.md"] = render(
        env, "decision/artifacts.md.j2", **common,
        artifact_rows=[[link(f.path, f"evidence/{f.path}"), count(f.size), Markup(f"`{f.sha256}`")] for f in files],
    )
    out[f"{base}/evidence-index.md"] = render(
        env, "decision/evidence-index.md.j2", **common,
        index_rows={t.trial_id: _index_rows(t, "") for t in analysis.trials},
    )
    out[f"{base}/dossier.md"] = render(env, "decision/dossier.md.j2", **common, dossier_rows=_dossier_rows(evidence))
    out[f"{base}/hardware.md"] = render(env, "decision/hardware.md.j2", **common)
    out[f"{base}/redaction.md"] = render(
        env, "decision/redaction.md.j2", **common,
        receipt_rows={tid: [[f, cls, str(n)] for f, per_class in sorted(r.counts.items()) for cls, n in sorted(per_class.items())]
                      for tid, r in recs.items() if r},
    )
    out[f"{base}/analysis.json"] = analysis_json(analysis).encode()  # byte for byte what analyze --json prints
    for trial in analysis.trials:
        tdir = f"{base}/{trial.trial_id}"
        trial_ctx = dict(common, t=trial, charts=charts[trial.trial_id], chart_tables=tables[trial.trial_id],
                         simulated=trial.simulated, simulated_text=_simulated_text(analysis))
        labels = phase_labels(trial)
        out[f"{tdir}/summary.md"] = render(
            env, "decision/summary.md.j2", **trial_ctx, index_rows=_index_rows(trial, "../"),
            run_rows=[[labels[r.phase], r.run, f"{r.input_nominal}/C{r.concurrency}", f"{r.ok}/{r.requests}",
                       {True: "yes", False: "no", None: "not recorded"}[r.reconciled],
                       *(seconds(r.percentiles["e2e_s"][p]) for p in ("p50", "p90", "p99"))] for r in trial.runs],
            failure_rows=[[f.phase, f.run, str(f.index), f.error] for f in trial.failures],
        )
        out[f"{tdir}/per-run.md"] = render(env, "decision/per-run.md.j2", **trial_ctx)
        out[f"{tdir}/chart-data.md"] = render(
            env, "decision/chart-data.md.j2", **trial_ctx,
            source_rows=[[a.phase, link(a.journal, f"../evidence/{trial.trial_id}/{a.journal}"), count(a.size),
                          Markup(f"`{a.sha256}`")] for a in trial.arms],
        )
        rows = per_run_rows(trial)
        out[f"{tdir}/per-run.csv"] = rows_csv(rows)
        out[f"{tdir}/per-run.json"] = rows_json(trial, rows)
        for name, chart in charts[trial.trial_id].items():
            out[f"{tdir}/{name}.svg"] = chart.svg
    for f in files:
        out[f"{base}/evidence/{f.path}"] = f.data
    return out
