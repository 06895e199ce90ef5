"""Charts: Altair specs from chart data, rendered to static SVG with vl-convert.

Every chart exists twice: a static SVG (no JavaScript, works from ``file://``) and
the same Vega-Lite spec embedded for the interactive version, drawn by the
locally vendored vega scripts pinned to vl-convert's own versions. Both come
from one spec, so they cannot disagree.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from ..analyze.report import VERDICTS, TrialAnalysis
from ..memo import Memo
from ..present import arm_labels, phase_labels, ratio
from .chart_data import GPU_SERIES, TELEMETRY_SERIES, interval_rows, per_run_rows, threshold_rows, ttft_rows
from .layout import VEGA_SCRIPT


class _Deferred:
    """A module imported when one of its names is first used, not when this module is: Altair, pandas and
    vl-convert cost about a second of imports, which the plugin's configuration, ``verify`` and a build
    read back from a cache never need (they draw no chart)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)


if TYPE_CHECKING:
    import altair as alt
    import pandas as pd
    import vl_convert
else:
    alt, pd, vl_convert = _Deferred("altair"), _Deferred("pandas"), _Deferred("vl_convert")

__all__ = ["Chart", "trial_charts", "telemetry_chart", "render_svg", "vendored_script", "VEGA_SCRIPT"]

WIDTH = 520
# Text at the size of the page's small print (12 px), drawn at its size: a chart wider than the
# column scrolls rather than shrinks (assets/extra.css).
LABEL_FONT = 12
UPPER_ROW_DY = -22  # a second row of labels, one LABEL_FONT line and a gap above the first
TEXT_CONFIG = {
    "axis": {"labelFontSize": LABEL_FONT, "titleFontSize": LABEL_FONT},
    "legend": {"labelFontSize": LABEL_FONT, "titleFontSize": LABEL_FONT},
    "header": {"labelFontSize": LABEL_FONT, "titleFontSize": LABEL_FONT},
}
PHASE_COLOURS = ["#4c78a8", "#e45756", "#72b7b2"]
# The arms of a longer design: candidate blocks in warm colours, control blocks between the first
# and the last in cool ones (the first and last keep before's and restored's colours).
CANDIDATE_BLOCK_COLOURS = ["#e45756", "#f58518", "#b279a2", "#ff9da6"]
CONTROL_BLOCK_COLOURS = ["#9ecae9", "#54a24b", "#88d27a", "#bab0ac"]
# One fixed colour per verdict, from Okabe & Ito's colour-blind-safe palette (grey for "no verdict reached").
VERDICT_COLOURS = {"win": "#009E73", "likely": "#E69F00", "no-win": "#0072B2", "regression": "#D55E00", "inconclusive": "#999999"}


@dataclass
class Chart:
    """One chart of one trial: a file stem, its spec, alt text and caption."""

    name: str
    title: str
    alt: str
    spec: dict[str, Any]
    svg: bytes = b""

    def spec_json(self) -> str:
        """The spec as compact, key-sorted JSON (embedded in the page for the interactive version).

        ``$schema`` is dropped: it is a remote URL, and the page tells vega-embed
        the mode instead, so no page names a remote address.
        """
        spec = {k: v for k, v in self.spec.items() if k != "$schema"}
        return json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _phase_scale(trial: TrialAnalysis) -> alt.Scale:
    return alt.Scale(domain=list(phase_labels(trial).values()), range=PHASE_COLOURS)


def _arm_scale(trial: TrialAnalysis) -> alt.Scale:
    """Colours of the arms in run order: the phases' own for A/B/A."""
    if trial.design == "A/B/A":
        return _phase_scale(trial)
    colours = []
    candidates = controls = 0
    for position, arm in enumerate(trial.arms):
        if position == 0 or position == len(trial.arms) - 1:
            colours.append(PHASE_COLOURS[0 if position == 0 else 2])
        elif arm.role == "candidate":
            colours.append(CANDIDATE_BLOCK_COLOURS[candidates % len(CANDIDATE_BLOCK_COLOURS)])
            candidates += 1
        else:
            colours.append(CONTROL_BLOCK_COLOURS[controls % len(CONTROL_BLOCK_COLOURS)])
            controls += 1
    return alt.Scale(domain=arm_labels(trial), range=colours)


def _group_order(trial: TrialAnalysis) -> list[str]:
    return [g.label for g in trial.groups]


# Every field a chart encodes names its type (``:N``, ``:Q``): altair infers an untyped one from the data, and
# a chart with no rows would give it none to infer from.
def _points_by_group(
    trial: TrialAnalysis, rows: list[dict[str, Any]], y: str, y_title: str, height: int, tooltip: list[str], *, per_arm: bool, **extra: Any
) -> dict[str, Any]:
    """Points per workload group, offset and coloured by arm (``per_arm``) or by pooled phase: the shape of
    the per-run and TTFT charts."""
    labels = arm_labels(trial) if per_arm else list(phase_labels(trial).values())
    scale = _arm_scale(trial) if per_arm else _phase_scale(trial)
    chart = (
        alt.Chart(pd.DataFrame(rows))
        .mark_point(filled=True, size=70, opacity=0.85)
        .encode(
            x=alt.X("group:N", sort=_group_order(trial), title="Workload group (actual input / concurrency)", axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset("arm_label:N", sort=labels),
            y=alt.Y(f"{y}:Q", title=y_title),
            color=alt.Color("arm_label:N", scale=scale, sort=labels, title="Arm"),
            tooltip=tooltip,
            **extra,
        )
        .properties(width=WIDTH, height=height)
    )
    spec: dict[str, Any] = chart.to_dict()
    return spec


def per_run_chart(trial: TrialAnalysis) -> Chart:
    """Per-run nearest-rank p50 end-to-end latency by group and arm (one point per run)."""
    spec = _points_by_group(
        trial,
        per_run_rows(trial),
        "e2e_p50_s",
        "Per-run p50 end-to-end seconds",
        300,
        ["group:N", "arm_label:N", "run:N", "repetition:Q", "e2e_p50_s:Q", "journal_sha256:N"],
        per_arm=True,
    )
    return Chart(
        name="per-run",
        title="Per-run p50 end-to-end latency",
        alt=(
            f"Scatter plot of {trial.title}: one point per run, the nearest-rank p50 end-to-end seconds of its "
            "requests, grouped by workload group on the x axis and coloured by arm (original before, candidate, "
            "original restored). Lower is better. The data table below lists every point."
        ),
        spec=spec,
    )


def _threshold_labels(lines: alt.Chart) -> list[alt.Chart]:
    """The threshold lines' words above the plot, where no two can meet however close the lines are drawn:
    'no change' centred on its line in the upper row; in the lower row the faster threshold's words end
    just left of its line and the slower one's start just right of its own, so they point away from each
    other (the lower threshold is always left of the higher one). Above the plot nothing else is drawn
    (the axis labels are left of it, the legend right of it from its top down), and Vega's autosize
    makes room for words that run past the plot's ends."""

    def words(where: Any, align: Literal["left", "center", "right"], dx: int, dy: int) -> alt.Chart:
        mark = lines.transform_filter(where).mark_text(align=align, dx=dx, dy=dy, baseline="bottom", fontSize=LABEL_FONT, color="#333333")
        chart: alt.Chart = mark.encode(text="line:N", y=alt.value(0))
        return chart

    return [
        words(alt.datum.ratio == 1, "center", 0, UPPER_ROW_DY),
        words(alt.datum.ratio < 1, "right", -4, -4),
        words(alt.datum.ratio > 1, "left", 4, -4),
    ]


def interval_chart(trial: TrialAnalysis) -> Chart:
    """Candidate / control ratio of pooled medians with its run-level interval, per group and control, coloured by
    the group's verdict, over lines at the rule's threshold either way and at no change (all from the analysis)."""
    rows = interval_rows(trial)
    controls = list(dict.fromkeys(r["control"] for r in rows))
    verdicts = [v for v in VERDICTS if v in trial.verdicts]  # the verdicts the trial's statistics version has
    base = alt.Chart(pd.DataFrame(rows)).encode(
        y=alt.Y("group:N", sort=_group_order(trial), title=None),
        yOffset=alt.YOffset("control:N", sort=controls),
        color=alt.Color("verdict:N", title="Verdict", scale=alt.Scale(domain=verdicts, range=[VERDICT_COLOURS[v] for v in verdicts])),
    )
    bars = base.mark_rule(strokeWidth=2).encode(
        x=alt.X(
            "low:Q",
            title="Candidate / control pooled median (below 1 is faster)",
            scale=alt.Scale(zero=False),
            axis=alt.Axis(tickMinStep=0.05, format=".2f"),
        ),
        x2="high:Q",
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        x="ratio:Q",
        shape=alt.Shape("control:N", title="Against", sort=controls),
        tooltip=["group:N", "control:N", "ratio:Q", "low:Q", "high:Q", "verdict:N"],
    )
    lines = alt.Chart(pd.DataFrame(threshold_rows(trial))).encode(x="ratio:Q")
    rules = lines.mark_rule(color="#333333", strokeDash=[4, 3]).encode(tooltip=["line:N", "ratio:Q"])
    chart = alt.layer(rules, *_threshold_labels(lines), bars, points).properties(width=WIDTH, height=220)
    low, high = trial.rule.threshold_low_ratio, trial.rule.threshold_high_ratio
    return Chart(
        name="intervals",
        title="Pooled median ratio with run-level interval and verdict",
        alt=(
            f"Interval plot of {trial.title}: for each workload group, the candidate's pooled median end-to-end "
            "latency divided by each control's, as a point (its shape marks the control), with its run-level 95% "
            "interval as a line, both coloured by the group's verdict (win, no-win, regression, inconclusive); "
            f"dashed lines mark the rule's threshold ratios {ratio(low)} (faster) and {ratio(high)} (slower) and "
            "a ratio of 1 (no change). The data table below lists every value."
        ),
        spec=chart.to_dict(),
    )


def ttft_chart(trial: TrialAnalysis) -> Chart:
    """Pooled median TTFT against visible-content TTFT, per group and arm."""
    spec = _points_by_group(
        trial,
        ttft_rows(trial),
        "median_s",
        "Pooled median seconds",
        260,
        ["group:N", "arm_label:N", "metric:N", "median_s:Q", "n:Q"],
        per_arm=False,
        shape=alt.Shape("metric:N", title="Metric"),
    )
    return Chart(
        name="ttft",
        title="TTFT and visible-content TTFT",
        alt=(
            f"Scatter plot of {trial.title}: pooled median time to the first token and to the first visible "
            "content token, per workload group and arm; shape marks the metric. The data table below lists every value."
        ),
        spec=spec,
    )


def telemetry_chart(trial: TrialAnalysis, rows: list[dict[str, Any]]) -> Chart:
    """Sampled engine gauges and GPU series over each arm's time, one panel per series, a line
    per arm and device (each GPU its own line in the GPU panels)."""
    labels = arm_labels(trial)
    gpus = sorted({r["device"] for r in rows if r["device"] != "engine"})
    chart = (
        alt.Chart(pd.DataFrame(rows))
        .mark_line(point=True)
        .encode(
            x=alt.X("t_s:Q", title="Seconds since the arm's sampler started"),
            y=alt.Y("value:Q", title=None),
            color=alt.Color("arm_label:N", scale=_arm_scale(trial), sort=labels, title="Arm"),
            detail="device:N",
            tooltip=["arm_label:N", "series:N", "device:N", "t_s:Q", "value:Q"],
        )
        .properties(width=WIDTH, height=120)
        .facet(row=alt.Row("series:N", title=None, sort=[*TELEMETRY_SERIES, *GPU_SERIES]))
        .resolve_scale(y="independent")
    )
    return Chart(
        name="telemetry",
        title="Sampled engine telemetry",
        alt=(
            f"Line charts of {trial.title}: the engine's running requests, waiting requests and KV cache usage "
            + (f"and the memory, power and utilisation of {len(gpus)} GPU(s), one line per GPU, " if gpus else "")
            + "as sampled during each arm, one panel per series, coloured by arm. The data table below lists every sample."
        ),
        spec=chart.to_dict(),
    )


def _rename_datasets(chart: Chart) -> None:
    """Name inline datasets ``<chart>-<n>`` instead of Altair's content hashes (which look like secrets)."""
    text = json.dumps(chart.spec, sort_keys=True)
    for n, old in enumerate(sorted(chart.spec.get("datasets", {}))):
        text = text.replace(json.dumps(old), json.dumps(f"{chart.name}-{n}"))
    chart.spec = json.loads(text)


def trial_charts(trial: TrialAnalysis, telemetry: list[dict[str, Any]] | None = None) -> dict[str, Chart]:
    """Every chart of one trial, by name, SVG rendered (the telemetry chart only when there are samples).
    Drawn once per process for one analysis and telemetry (a pure function of them); each call gets charts
    of its own, read from the drawing's JSON."""
    key = json.dumps({"trial": trial.model_dump(mode="json", by_alias=True), "telemetry": telemetry or []}, sort_keys=True)
    drawn = _DRAWN.get(key, lambda: json.dumps(charts_json(_draw(trial, telemetry))))
    return charts_from_json(json.loads(drawn))


_DRAWN: Memo[str] = Memo(64 * 1024 * 1024)  # characters of analyses and of their charts' JSON kept


def charts_json(charts: dict[str, Chart]) -> list[dict[str, Any]]:
    """The charts as JSON values: name, title, alt text, spec and SVG (as text)."""
    return [{"name": c.name, "title": c.title, "alt": c.alt, "spec": c.spec, "svg": c.svg.decode("utf-8")} for c in charts.values()]


def charts_from_json(values: list[dict[str, Any]]) -> dict[str, Chart]:
    """The charts :func:`charts_json` wrote, by name (``KeyError``, ``TypeError``... where a value is not one)."""
    charts = [Chart(name=c["name"], title=c["title"], alt=c["alt"], spec=c["spec"], svg=c["svg"].encode("utf-8")) for c in values]
    return {c.name: c for c in charts}


def _draw(trial: TrialAnalysis, telemetry: list[dict[str, Any]] | None) -> dict[str, Chart]:
    charts = [per_run_chart(trial), interval_chart(trial), ttft_chart(trial)]
    if telemetry:
        charts.append(telemetry_chart(trial, telemetry))
    for chart in charts:
        _rename_datasets(chart)
        chart.spec["config"] = {**chart.spec.get("config", {}), **TEXT_CONFIG}
        chart.svg = render_svg(chart.spec)
    return {c.name: c for c in charts}


def render_svg(spec: dict[str, Any]) -> bytes:
    """The static SVG of a Vega-Lite spec (vl-convert; no fonts embedded, no script)."""
    # Keyed by the spec as vl-convert reads it (its keys in their order): the same spec draws the same SVG.
    return _SVG.get(json.dumps(spec, allow_nan=True), lambda: vl_convert.vegalite_to_svg(spec).encode() + b"\n")


_SVG: Memo[bytes] = Memo(64 * 1024 * 1024)  # characters of specs and bytes of SVGs kept


@lru_cache(maxsize=1)
def vendored_script() -> bytes:
    """vega, vega-lite and vega-embed in one file, the exact versions vl-convert renders with.

    Built once per process: a build writes it and its leak scan compares two copies with it."""
    header = (
        f"/* vega {vl_convert.get_vega_version()}, vega-embed {vl_convert.get_vega_embed_version()}, "
        "vega-lite as bundled by vl-convert-python; vendored by evidence-kit so the site loads nothing remote. */\n"
    )
    # The stubs make ``snippet`` required; called without it, the bundle is the whole library.
    return (header + vl_convert.javascript_bundle() + "\n").encode()  # type: ignore[call-arg]
