"""The tables of a trial as rows of text, shown alike by the terminal report and the pages.

Each function reads figures and verdicts off the
:class:`~evidence_kit.analyze.report.TrialAnalysis` and writes them with
:mod:`.format`; none computes a figure or decides a verdict. Strings here are
untrusted where they carry evidence (labels, error texts); the pages escape
every cell, the terminal prints them as they are.
"""

from __future__ import annotations

from collections.abc import Callable

from ..analyze.report import CacheHits, GroupResult, Interval, TrialAnalysis
from ..analyze.verdicts import regression_floor_pct
from ..model import PHASES
from .arms import arm_label_map, arm_labels, arm_phases, phase_labels
from .format import count, dash, faster_slower, higher_lower, percent, ratio, recorded, seconds, signed_percent, tokens
from .wording import METRIC_NAMES, detectable_text, guardrail_result_text, guardrail_text, verdict_text

__all__ = [
    "METRIC_TITLES",
    "phase_labels",
    "arm_phases",
    "arm_label_map",
    "arm_labels",
    "design_title",
    "design_headers",
    "design_rows",
    "metric_headers",
    "metric_rows",
    "interval_text",
    "COMPARISON_HEADERS",
    "comparison_headers",
    "comparison_cells",
    "comparison_rows",
    "TAIL_HEADERS",
    "tail_title",
    "tail_rows",
    "GUARDRAIL_TITLE",
    "GUARDRAIL_HEADERS",
    "guardrail_rows",
    "run_rows",
    "client_rows",
    "CLIENT_HEADERS",
    "client_headers",
    "GOODPUT_TITLE",
    "load_headers",
    "load_rows",
    "load_title",
    "load_text",
    "open_loop",
    "failure_rows",
    "telemetry_summary_rows",
    "occupancy",
    "occupancy_text",
    "cache_hit_title",
    "cache_hit_headers",
    "cache_hit_rows",
    "hit_cell",
]

METRIC_TITLES = {
    "e2e_s": "Median end-to-end seconds; lower is better.",
    "ttft_s": "Median time to first token (reasoning or content), seconds.",
    "ttft_content_s": "Median time to first visible content token, seconds.",
    "completion_tokens": "Median output (completion) tokens.",
}
GOODPUT_TITLE = (
    "Goodput: the share of timed requests that succeeded and met every declared SLO, and good requests "
    "per second of the runs' spans; higher is better."
)
METRIC_FORMAT: dict[str, Callable[[float | None], str]] = {
    "e2e_s": seconds,
    "ttft_s": seconds,
    "ttft_content_s": seconds,
    "completion_tokens": tokens,
    "goodput": lambda share: dash if share is None else f"{share * 100:.2f}%",
}
RECONCILED = {True: "yes", False: "no", None: "not reconcilable"}
COMPARISON_HEADERS = [
    "vs original before",
    "vs original restored",
    "95% CI ratio vs before",
    "95% CI ratio vs restored",
    "Smallest resolvable change",
    "Verdict",
]


def comparison_headers(trial: TrialAnalysis) -> list[str]:
    """:data:`COMPARISON_HEADERS`, with the drift-corrected control's interval where a v4 longer design has it."""
    if not any(i.control == "corrected" for g in trial.groups for i in g.intervals):
        return COMPARISON_HEADERS
    return [*COMPARISON_HEADERS[:4], "95% CI ratio vs drift-corrected", *COMPARISON_HEADERS[4:]]


TAIL_HEADERS = ["Group", "Statistic", "Ratio vs before", "95% CI ratio vs before", "Ratio vs restored", "95% CI ratio vs restored"]
GUARDRAIL_TITLE = (
    "Guardrails, checked at every group against both controls on the point estimates (a breach "
    "against both blocks promotion, whatever the intervals say):"
)
GUARDRAIL_HEADERS = [
    "Guardrail",
    "Group",
    "vs original before",
    "vs original restored",
    "95% CI ratio vs before",
    "95% CI ratio vs restored",
    "Result",
]


def open_loop(trial: TrialAnalysis) -> bool:
    """The trial's groups are arrival rates (open loop), not concurrencies."""
    return any(g.rate is not None for g in trial.groups)


def load_text(concurrency: int | None, rate: float | None) -> str:
    """A group's load as its tables write it: '4' (concurrency) or '2.0/s' (rate)."""
    return f"{rate!r}/s" if rate is not None else str(concurrency)


def metric_headers(trial: TrialAnalysis) -> list[str]:
    """Headers of a pooled-median table: input, concurrency (or rate), then one column per pooled phase."""
    return ["Actual input", "Rate" if open_loop(trial) else "Concurrency", *phase_labels(trial).values()]


def metric_rows(trial: TrialAnalysis, metric: str) -> list[list[str]]:
    """Rows of a pooled-median table: input label, concurrency or rate, before, candidate, restored."""
    fmt = METRIC_FORMAT[metric]
    return [[g.input_label, load_text(g.concurrency, g.rate)] + [fmt(g.pooled[metric][p].median) for p in PHASES] for g in trial.groups]


def load_title(trial: TrialAnalysis) -> str:
    """The goodput table's title, or the achieved-rate table's where the trial declares no SLOs."""
    if trial.groups and trial.groups[0].load and trial.groups[0].load["before"].good is not None:
        return GOODPUT_TITLE
    return "Achieved arrival rate: requests started per second, each run's sends after its first over their span."


def load_headers(trial: TrialAnalysis) -> list[str]:
    """Headers of the goodput and achieved-rate table: group, then per pooled phase what the trial has."""
    cells = []
    for label in phase_labels(trial).values():
        if trial.groups and trial.groups[0].load and trial.groups[0].load["before"].good is not None:
            cells += [f"{label} goodput", f"{label} good/s"]
        if open_loop(trial):
            cells.append(f"{label} achieved rate")
    return ["Group", *cells]


def load_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Per group (with goodput or an open loop): each pooled phase's goodput share and good requests per
    second (with SLOs), and achieved arrival rate (open loop); empty when the trial has neither."""
    rows = []
    for g in trial.groups:
        if g.load is None:
            continue
        cells = [g.label]
        for phase in PHASES:
            load = g.load[phase]
            if load.good is not None:
                cells += [f"{METRIC_FORMAT['goodput'](load.share)} ({load.good}/{load.requests})", rate_text(load.good_rate_per_s)]
            if g.rate is not None:
                cells.append(rate_text(load.achieved_rate_per_s))
        rows.append(cells)
    return rows


def rate_text(value: float | None) -> str:
    """Requests per second to three decimals: '1.994/s'."""
    return dash if value is None else f"{value:.3f}/s"


def interval_text(interval: Interval) -> str:
    """'1.031–1.155', or '0.989–1.113 (n.s.)' when the interval includes a ratio of 1, or 'not estimable'
    when none could be drawn (fewer than two runs or values in an arm, a control at zero)."""
    if interval.low is None or interval.high is None:
        return "not estimable"
    text = f"{ratio(interval.low)}–{ratio(interval.high)}"
    return text if interval.resolvable else text + " (n.s.)"


def comparison_cells(trial: TrialAnalysis, group: GroupResult) -> list[str]:
    """The decision metric against each control, the run-level interval against each, the smallest change
    the group's data resolve ('9.85%': smaller differences are not resolvable) and the verdict."""
    threshold = trial.rule.min_improvement_pct
    if trial.rule.metric == "goodput":  # not a speed: higher is better
        cells = [higher_lower(c.change_pct) for c in group.comparisons["goodput"]]
    else:
        cells = [
            faster_slower(c.change_pct, faster_bound=threshold, slower_bound=regression_floor_pct(threshold))
            for c in group.comparisons[trial.rule.metric]
        ]
    cells += [interval_text(interval) for interval in group.intervals]
    cells += [detectable_text(group), verdict_text(group)]
    return cells


def comparison_rows(trial: TrialAnalysis) -> list[list[str]]:
    """One row per group: its label, then :func:`comparison_cells`."""
    return [[g.label, *comparison_cells(trial, g)] for g in trial.groups]


def design_title(trial: TrialAnalysis) -> str:
    """The design table's title: the design and the decision metric's title."""
    return f"Design {trial.design}, block by block. {METRIC_TITLES[trial.rule.metric]}"


def design_headers(trial: TrialAnalysis) -> list[str]:
    """Headers of the design table: group, each control block's median, the drift, the corrected control,
    the candidate against it and against each control block."""
    labels = arm_label_map(trial)
    controls = [a.seq for a in trial.arms if a.role == "control"]
    return [
        "Group",
        *(labels[seq] for seq in controls),
        "Control drift per arm",
        "Drift-corrected control",
        "vs corrected control",
        *(f"vs {labels[seq]}" for seq in controls),
    ]


def design_rows(trial: TrialAnalysis) -> list[list[str]]:
    """One row per group: the decision metric block by block, as :func:`design_headers` names the columns."""
    fmt = METRIC_FORMAT[trial.rule.metric]
    rows = []
    for g in trial.groups:
        d = g.design
        controls = [b.median for b in d.blocks if b.phase != "candidate"]
        rows.append(
            [
                g.label,
                *(fmt(m) for m in controls),
                signed_percent(d.drift_pct_per_arm),
                fmt(d.corrected_control),
                faster_slower(d.change_vs_corrected_pct),
                *(faster_slower(c.change_pct) for c in d.vs_controls),
            ]
        )
    return rows


def tail_title(trial: TrialAnalysis) -> str:
    """What the tail table shows."""
    return (
        f"Tail latency: the candidate / control ratio of the pooled p90 and p99 {METRIC_NAMES[trial.rule.metric]} "
        f"(nearest-rank percentiles of the pooled requests) with its {'launch' if trial.rule.statistics == 4 else 'run'}-level 95% interval."
    )


def tail_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Per group and tail statistic (p90, p99 of the decision metric): the candidate / control ratio and its
    run-level 95% interval against each control, in the order the analysis holds them."""
    rows = []
    for g in trial.groups:
        for stat in dict.fromkeys(i.statistic for i in g.tail_intervals):
            cells = [g.label, stat]
            for interval in (i for i in g.tail_intervals if i.statistic == stat):
                cells += [ratio(interval.ratio), interval_text(interval)]
            rows.append(cells)
    return rows


def guardrail_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Per declared guardrail and group: the guardrail in words, the change against each control, the
    run-level intervals, held or BREACHED (and whether within the noise)."""
    rows = []
    for k, _ in enumerate(trial.rule.guardrails):
        for g in trial.groups:
            result = g.guardrails[k]
            rows.append(
                [
                    guardrail_text(result.rule),
                    g.label,
                    higher_lower(result.change_vs_before_pct),
                    higher_lower(result.change_vs_restored_pct),
                    *(interval_text(i) for i in result.intervals),
                    guardrail_result_text(result),
                ]
            )
    return rows


def run_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Per run: arm, run, group, requests ok / recorded, reconciled, nearest-rank p50 / p90 / p99 seconds."""
    labels = arm_label_map(trial)
    return [
        [
            labels[r.seq],
            r.run,
            f"{r.input_nominal}/{'C' if r.rate is None else 'R'}{load_text(r.concurrency, r.rate)}",
            f"{r.ok}/{r.requests}",
            RECONCILED[r.reconciled],
            *(seconds(r.percentiles["e2e_s"][p]) for p in ("p50", "p90", "p99")),
        ]
        for r in trial.runs
    ]


CLIENT_HEADERS = [
    "Phase",
    "Run",
    "Loop lag p50 / max (s)",
    "Send wait p50 / max (s)",
    "Loop CPU (of one core)",
    "Concurrency achieved / planned",
    "Client bounds",
]


def client_headers(trial: TrialAnalysis) -> list[str]:
    """:data:`CLIENT_HEADERS`; an open-loop trial's achieved load is a rate."""
    if not open_loop(trial):
        return CLIENT_HEADERS
    return [*CLIENT_HEADERS[:5], "Rate achieved / planned", CLIENT_HEADERS[6]]


def client_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Per run whose record holds the client's health: its loop lag, send wait, loop CPU share, achieved
    concurrency, and the bounds it exceeded; empty when no run recorded it."""
    labels = arm_label_map(trial)
    rows = []
    for r in trial.runs:
        c = r.client
        if c is None:
            continue
        share = dash if c.loop_cpu_share is None else f"{c.loop_cpu_share * 100:.2f}%"
        achieved = dash if c.achieved_concurrency is None else f"{c.achieved_concurrency:.2f}"
        planned = str(r.concurrency)
        if r.rate is not None:  # open loop: requests started per second, against the schedule's and the plan's
            achieved = f"{rate_text(c.achieved_rate_per_s)} (schedule {rate_text(c.scheduled_rate_per_s)})"
            planned = f"{r.rate!r}/s"
        verdict = ", ".join(f"{e.bound} exceeded" for e in c.exceeded) or "within"
        rows.append(
            [
                labels[r.seq],
                r.run,
                f"{seconds(c.loop_lag_p50_s)} / {seconds(c.loop_lag_max_s)}",
                f"{seconds(c.send_wait_p50_s)} / {seconds(c.send_wait_max_s)}",
                share,
                f"{achieved} / {planned}",
                verdict,
            ]
        )
    return rows


def failure_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Every failed timed request: phase (and block), run, index, the error as recorded."""
    phases = arm_phases(trial)
    return [[phases[f.seq], f.run, str(f.index), f.error] for f in trial.failures]


def telemetry_summary_rows(trial: TrialAnalysis) -> list[list[str]]:
    """Rows (summary key, then each arm in run order) of each arm's telemetry summary, as ``analyze``
    recomputed it from the sampled series; empty when no arm has samples."""
    summaries = [arm.telemetry.model_dump() if arm.telemetry else {} for arm in trial.arms]
    keys = sorted({k for summary in summaries for k in summary})
    return [[k.replace("_", " "), *(recorded(s.get(k)) for s in summaries)] for k in keys]


def occupancy(trial: TrialAnalysis) -> list[str] | None:
    """The most running requests sampled in each arm, or None when no arm was sampled."""
    if all(arm.telemetry is None for arm in trial.arms):
        return None
    return [recorded(arm.telemetry.max_running if arm.telemetry else None) for arm in trial.arms]


def occupancy_text(trial: TrialAnalysis) -> str | None:
    """'4 running requests before, 4 in the candidate and 3 restored' (A/B/A), or arm by arm for a longer
    design ('4 running requests before, 4 in candidate 1, 3 in restored 1, …'); None when no arm was sampled."""
    running = occupancy(trial)
    if running is None:
        return None
    if trial.design == "A/B/A":
        return f"{running[0]} running requests before, {running[1]} in the candidate and {running[2]} restored"
    phases = arm_phases(trial)
    later = [f"{n} in {phases[a.seq]}" for a, n in zip(trial.arms[1:], running[1:])]
    return f"{running[0]} running requests before, {', '.join(later[:-1])} and {later[-1]}"


def cache_hit_title(trial: TrialAnalysis) -> str | None:
    """What the prefix-cache table shows; None when no group has cache hits to show."""
    if not any(g.cache_hits for g in trial.groups):
        return None
    shared = (
        f"{trial.prefixes} shared prefixes of ~{count(trial.prefix_tokens)} tokens open the prompts of the groups marked shared; "
        if trial.prefix_tokens is not None
        else "Each turn of a conversation re-sends its history (groups marked history), every first turn is unique; "
        if any(g.turns for g in trial.groups)
        else "Every prompt is unique; "
    )
    return (
        "Prefix-cache hit rate: the prompt tokens the engine reported serving from its cache "
        "(usage cached_tokens) over the prompt tokens of the requests that reported it. "
        + shared
        + "each run's sum is reconciled with the engine's prefix-cache counters where it has them."
    )


def cache_hit_headers(trial: TrialAnalysis) -> list[str]:
    """Headers of the prefix-cache table: group, shared prefix, one column per pooled phase."""
    return ["Group", "Shared prefix", *phase_labels(trial).values()]


def hit_cell(hits: CacheHits) -> str:
    """A hit rate, with how many reported it where not all did; 'not reported' where none did."""
    if hits.hit_rate_pct is None:
        return "not reported"
    cell = percent(hits.hit_rate_pct)
    return cell if hits.reporting == hits.requests else f"{cell} ({hits.reporting} of {hits.requests} reported)"


def cache_hit_rows(trial: TrialAnalysis) -> list[list[str]]:
    """One row per group with cache hits: its label, shared, history (multi-turn) or unique prompts, each phase's
    hit rate."""
    return [
        [g.label, "shared" if g.shared_prefix else "history" if g.turns else "unique", *(hit_cell(g.cache_hits[p]) for p in PHASES)]
        for g in trial.groups
        if g.cache_hits
    ]
