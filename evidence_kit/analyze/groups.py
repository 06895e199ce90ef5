"""Per-group figures: pooled statistics, comparisons against each control, intervals,
guardrails, the detectable change and the verdict."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..model import CONTROLS, PHASES, DecisionRule, Request
from ..model.evidence import TrialEvidence
from ..model.trial import Guardrail, Load, Slo
from .blocks import judged_against, launch_intervals, smallest_win
from .cache import cache_hits
from .design import design_result
from .family import FAMILY_ALPHA
from .goodput import good_values, group_load
from .report import Comparison, GroupLoad, GroupResult, GuardrailResult, GuardrailRule, Interval, Pooled, TurnResult, Verdict
from .stats import (
    DEFAULT_METHOD,
    bootstrap_ratio_interval,
    change,
    detectable_change,
    mean,
    median,
    nearest_rank,
    seed_for,
    statistic,
)
from .verdicts import verdict_for, verdict_v4

__all__ = [
    "METRICS",
    "CONTROLS",
    "fewest_runs",
    "group_labels",
    "group_results",
    "input_label",
    "pct",
    "pooled_statistics",
    "guardrail_rule",
    "reaches",
    "requests_by_arm",
    "run_values",
    "turn_results",
    "TURN_METRICS",
]

METRICS: tuple[str, ...] = ("e2e_s", "ttft_s", "ttft_content_s", "completion_tokens")


def pct(fraction: float | None) -> float | None:
    """A fraction as percent (``0.0924`` -> ``9.24``)."""
    return None if fraction is None else fraction * 100


def input_label(tokens: Sequence[int]) -> str:
    """'~6K' for prompts around 6,066 tokens: the median, to the nearest thousand (exact below 1,000)."""
    mid = median(tokens)
    if mid is None:
        return "~?"
    if mid < 1000:
        return f"~{round(mid)}"
    return f"~{round(mid / 1000)}K"


def _values(requests: Sequence[Request], metric: str, slo: Slo | None = None) -> list[float]:
    """The metric of every ok timed request (warmup and failed requests never enter a statistic); for
    ``goodput``, 1 or 0 for every timed request (a failed one is not good: it counts as 0)."""
    if metric == "goodput":
        if slo is None:
            raise ValueError("goodput needs the trial's slo")
        return good_values(requests, slo)
    out: list[float] = []
    for r in requests:
        if r.warmup or not r.ok:
            continue
        value = getattr(r, metric)
        if value is not None:
            out.append(value)
    return out


Cells = dict[int, dict[tuple[int, Load], list[Request]]]


def requests_by_arm(evidence: TrialEvidence) -> Cells:
    """Arm seq -> group (input, concurrency or rate) -> the arm's timed requests."""
    table: Cells = {}
    for arm in evidence.arms:
        cells = table.setdefault(arm.ref.seq, {})
        for r in arm.requests:
            if not r.warmup:
                cells.setdefault((r.input_nominal, r.load), []).append(r)
    return table


def run_values(arms: Sequence[Sequence[Request]], metric: str, slo: Slo | None = None) -> list[list[float]]:
    """The metric's values run by run: the units the default interval resamples (two candidate blocks' runs
    of one id are two runs). In a canonical order, so the interval is a function of the measurements alone,
    not of the order their lines were written in: each run's values ascending, the runs in ascending
    (lexicographic) order of those lists. Before, reordering a run's request lines drew another interval
    and could flip a ``significant`` verdict."""
    out: list[list[float]] = []
    for requests in arms:
        by_run: dict[tuple[int, str], list[Request]] = {}
        for r in requests:
            by_run.setdefault((r.repetition, r.run), []).append(r)
        out += [sorted(_values(by_run[key], metric, slo)) for key in by_run]
    return sorted(out)


def reaches(pct_value: float | None, threshold_pct: float) -> bool:
    """``pct_value >= threshold_pct``, compared in percent with a tolerance far below any displayed
    digit, so a row sitting exactly on the threshold (10.00 %) is not lost to binary rounding."""
    return pct_value is not None and pct_value >= threshold_pct - 1e-9


def guardrail_rule(guardrail: Guardrail) -> GuardrailRule:
    """A declared guardrail as the analysis document states it (bounds in percent)."""
    if guardrail.max_change is not None:
        return GuardrailRule(metric=guardrail.metric, statistic=guardrail.statistic, kind="max-change", bound_pct=guardrail.max_change * 100)
    assert guardrail.max_regression is not None
    return GuardrailRule(metric=guardrail.metric, statistic=guardrail.statistic, kind="max-regression", bound_pct=guardrail.max_regression * 100)


class _Group:
    """One group's requests per phase, and the seeded intervals drawn from them."""

    def __init__(self, evidence: TrialEvidence, per_arm: Sequence[list[Request]], per_phase: Mapping[str, list[list[Request]]], inp: int, conc: Load):
        self.trial_id = evidence.trial.trial_id
        self.slo = evidence.trial.slo
        self.arms = evidence.trial.arms
        self.per_arm = per_arm  # each arm's requests, in run order
        self.per_phase = per_phase  # phase -> its arms' requests, arm by arm
        self.inp, self.conc = inp, conc
        # Statistics v4 reads the launch-level interval wherever v3 read the studentised run-level one.
        self.method = "launch-t" if evidence.trial.decision_rule.version == 4 else DEFAULT_METHOD

    def smallest_win(self, rule: DecisionRule, level: float) -> float | None:
        """Statistics v4: the smallest observed improvement (a fraction) the rule would call a win (``blocks.py``)."""
        runs = [run_values([rs], rule.metric, self.slo) for rs in self.per_arm]
        return smallest_win(self.arms, runs, statistic(_computed(rule.statistic)), rule, level)

    def intervals(self, metric: str, stat: str, method: str, threshold_ratio: float | None = None) -> list[Interval]:
        # goodput's share is the mean of each request's 0/1: the bootstrap draws the same runs, the mean of each.
        of = statistic(_computed(stat))
        if method == "launch-t":
            runs = [run_values([rs], metric, self.slo) for rs in self.per_arm]
            return launch_intervals(self.arms, runs, of, stat, threshold_ratio, higher_is_better=metric == "goodput")
        out = []
        cand_runs = run_values(self.per_phase["candidate"], metric, self.slo)
        for control in CONTROLS:
            seed = seed_for("evidence-kit/bootstrap/v2", self.trial_id, metric, stat, method, self.inp, self.conc, control)
            ctrl_runs = run_values(self.per_phase[control], metric, self.slo)
            interval = bootstrap_ratio_interval(cand_runs, ctrl_runs, seed, method=method, statistic_name=_computed(stat))
            mc = of([v for run in cand_runs for v in run])
            mk = of([v for run in ctrl_runs for v in run])
            low, high = interval if interval else (None, None)
            out.append(
                Interval(
                    control=control,
                    statistic=stat,  # type: ignore[arg-type]
                    method=method,  # type: ignore[arg-type]
                    ratio=None if mc is None or not mk or not math.isfinite(mc / mk) else mc / mk,
                    low=low,
                    high=high,
                    resolvable=low is not None and high is not None and (high < 1 or low > 1),
                )
            )
        return out


def _computed(stat: str) -> str:
    """The statistic :mod:`.stats` computes for a rule's: goodput's ``share`` is the ``mean`` of 0/1 values."""
    return "mean" if stat == "share" else stat


def pooled_statistics(requests: Sequence[Request], metric: str) -> Pooled:
    """Median, p90 and p99 of ``metric`` over the ok timed requests among ``requests``."""
    values = _values(requests, metric)
    return Pooled(median=median(values), p90=nearest_rank(values, 90), p99=nearest_rank(values, 99), n=len(values))


def _comparisons(centres: Mapping[str, float | None], decisive: bool, rule: DecisionRule, higher_is_better: bool = False) -> list[Comparison]:
    """The candidate's centre (a pooled median, or goodput's share) against each control's; an improvement
    is lower for a latency and higher for goodput."""
    sign = 1 if higher_is_better else -1
    out = []
    for control in CONTROLS:
        rel = change(centres["candidate"], centres[control])
        improvement = None if rel is None else sign * rel * 100
        out.append(
            Comparison(
                control=control,
                change_pct=pct(rel),
                improvement_pct=improvement,
                clears=reaches(improvement, rule.min_improvement * 100) if decisive else None,
            )
        )
    return out


def _carrying(arms: Sequence[Sequence[Request]], metric: str) -> Fraction | None:
    """The share (exact) of the ok timed requests that carry ``metric``; None without any ok timed request."""
    ok = [r for requests in arms for r in requests if r.ok and not r.warmup]
    return Fraction(sum(getattr(r, metric) is not None for r in ok), len(ok)) if ok else None


def _guardrail(group: _Group, pooled: dict[str, dict[str, Pooled]], guardrail: Guardrail) -> GuardrailResult:
    rule = guardrail_rule(guardrail)
    stats = {phase: getattr(pooled[rule.metric][phase], rule.statistic) for phase in PHASES}
    before, restored = (pct(change(stats["candidate"], stats[c])) for c in CONTROLS)
    intervals = group.intervals(rule.metric, rule.statistic, group.method)

    def beyond(change_pct: float | None) -> bool:
        if change_pct is None:
            return False
        worse = abs(change_pct) if rule.kind == "max-change" else change_pct
        return worse > rule.bound_pct + 1e-9

    breached = beyond(before) and beyond(restored)
    # The share of each arm's ok timed requests that carry the metric: a statistic over the candidate's
    # carriers alone would excuse the requests that lack it (a visible-content TTFT never reached).
    shares = {phase: _carrying(group.per_phase[phase], rule.metric) for phase in PHASES}
    covered = shares["candidate"] is not None and all(shares[c] is not None and shares["candidate"] >= shares[c] for c in CONTROLS)  # type: ignore[operator]
    return GuardrailResult(
        rule=rule,
        change_vs_before_pct=before,
        change_vs_restored_pct=restored,
        intervals=intervals,
        checked=before is not None and restored is not None and covered,
        breached=breached,
        within_noise=breached and any(not i.resolvable for i in intervals),
    )


def _group_arms(evidence: TrialEvidence, cells: Cells, inp: int, conc: Load) -> tuple[list[list[Request]], dict[str, list[list[Request]]]]:
    """One group's requests arm by arm, and per pooled entry (arm by arm): before the first control block,
    candidate every candidate block, restored the last control block."""
    trial = evidence.trial
    per_arm = [cells.get(ref.seq, {}).get((inp, conc), []) for ref in trial.arms]
    per_phase: dict[str, list[list[Request]]] = {
        phase: [rs for ref, rs in zip(trial.arms, per_arm) if trial.pooled_in(ref) == phase] for phase in PHASES
    }
    return per_arm, per_phase


def _prompt_tokens(cells: Cells) -> dict[int, list[int]]:
    """Nominal input size -> the prompt tokens of its ok timed requests, every arm and concurrency (in a
    multi-turn workload, of its conversations' first turns: a later turn holds the history before it)."""
    out: dict[int, list[int]] = {}
    for arm_cells in cells.values():
        for (inp, _), requests in arm_cells.items():
            out.setdefault(inp, []).extend(r.prompt_tokens for r in requests if r.ok and r.prompt_tokens is not None and r.turn in (None, 1))
    return out


TURN_METRICS: tuple[str, ...] = ("ttft_s", "e2e_s")


def turn_results(per_phase: Mapping[str, list[list[Request]]], rule: DecisionRule) -> list[TurnResult] | None:
    """Each turn's pooled TTFT and end-to-end time against each control, in a multi-turn group (None in a
    single-turn one, whose requests name no turn). The rule judges the group's turns pooled; these are shown."""
    turns = sorted({r.turn for arms in per_phase.values() for rs in arms for r in rs if r.turn is not None})
    out = []
    for turn in turns:
        of_turn: dict[str, list[list[Request]]] = {phase: [[r for r in rs if r.turn == turn] for rs in per_phase[phase]] for phase in PHASES}
        flat = {phase: [r for rs in of_turn[phase] for r in rs] for phase in PHASES}
        pooled: dict[str, dict[str, Pooled]] = {
            metric: {phase: pooled_statistics(flat[phase], metric) for phase in PHASES} for metric in TURN_METRICS
        }
        tokens = [r.prompt_tokens for rs in flat.values() for r in rs if r.ok and r.prompt_tokens is not None]
        out.append(
            TurnResult(
                turn=turn,
                input_tokens_min=min(tokens) if tokens else None,
                input_tokens_max=max(tokens) if tokens else None,
                pooled=pooled,
                comparisons={metric: _comparisons({phase: pooled[metric][phase].median for phase in PHASES}, False, rule) for metric in TURN_METRICS},
                cache_hits=cache_hits(of_turn),
            )
        )
    return out or None


def group_labels(evidence: TrialEvidence) -> dict[tuple[int, Load], str]:
    """(input_nominal, concurrency or rate) -> the group's label as the analysis names it (``~6K/C4``,
    ``~6K/R2.0``)."""
    tokens = _prompt_tokens(requests_by_arm(evidence))
    wl = evidence.trial.workload
    return {(inp, conc): f"{input_label(tokens.get(inp, []))}/{wl.load_label(conc)}" for inp, conc in wl.groups()}


def fewest_runs(evidence: TrialEvidence) -> int | None:
    """The fewest runs with values of the rule's metric that one pooled entry of one group holds: the units
    the default interval resamples (two candidate blocks' runs of one id are two). None without groups."""
    cells = requests_by_arm(evidence)
    metric = evidence.trial.decision_rule.metric
    counts = [
        sum(1 for run in run_values(per_phase[phase], metric, evidence.trial.slo) if run)
        for _, per_phase in (_group_arms(evidence, cells, inp, conc) for inp, conc in evidence.trial.workload.groups())
        for phase in PHASES
    ]
    return min(counts, default=None)


def _loads(trial_open: bool, slo: Slo | None, per_phase: Mapping[str, list[list[Request]]]) -> dict[str, GroupLoad] | None:
    """Each pooled entry's goodput and achieved rate, where the trial has SLOs or an open loop."""
    if slo is None and not trial_open:
        return None
    return {phase: group_load(per_phase[phase], slo, trial_open) for phase in PHASES}


def _judged(
    group: _Group, rule: DecisionRule, comparisons: Sequence[Comparison], drift: float | None, guardrails_held: bool, level: float
) -> tuple[list[Interval], Verdict, float | None]:
    """The decision metric's intervals, the group's verdict (v4: before Holm's step-down) and its detectable change
    (v4: the smallest observed improvement called a win at Holm's strictest ``level``)."""
    threshold_pct = rule.min_improvement * 100
    flagged = drift is not None and reaches(abs(drift), threshold_pct)
    if group.method != "launch-t":
        intervals = group.intervals(rule.metric, rule.statistic, group.method)
        verdict = verdict_for(comparisons, intervals, rule, drift, drift_flagged=flagged, guardrails_held=guardrails_held)
        widths = [detectable_change(i.low, i.high) for i in intervals if i.low is not None and i.high is not None]
        return intervals, verdict, pct(max(widths)) if len(widths) == len(intervals) else None
    sign = 1 if rule.higher_is_better else -1
    threshold_ratio = 1 + sign * rule.min_improvement
    intervals = group.intervals(rule.metric, rule.statistic, "launch-t", threshold_ratio)
    names = judged_against(group.arms)
    judged = [i for i in intervals if i.control in names]
    improvements = [None if i.ratio is None else sign * (i.ratio - 1) * 100 for i in judged]
    # A longer design's drift is modelled by the corrected control, not a reason to withhold the verdict.
    flagged = flagged and names == ("before", "restored")
    clears = (comparisons[0].clears is True, comparisons[1].clears is True)
    verdict = verdict_v4(improvements, judged, rule, drift, clears=clears, drift_flagged=flagged, guardrails_held=guardrails_held)
    smallest = group.smallest_win(rule, level)
    # Whole steps of 0.01 %: the figure shown is the one checked, without a binary tail (54.06000000000001).
    return intervals, verdict, None if smallest is None else round(smallest * 100, 2)


def group_results(evidence: TrialEvidence, decision_trials: int = 1) -> list[GroupResult]:
    """Every group of the trial's workload, in plan order (a v4 decision of ``decision_trials`` trials: each
    group's smallest win is at Holm's strictest level over the trial's groups, at the trial's share)."""
    trial = evidence.trial
    rule, wl = trial.decision_rule, trial.workload
    strictest = FAMILY_ALPHA / decision_trials / max(1, len(wl.groups()))
    cells = requests_by_arm(evidence)
    prompt_tokens = _prompt_tokens(cells)
    results: list[GroupResult] = []
    for inp, conc in wl.groups():
        per_arm, per_phase = _group_arms(evidence, cells, inp, conc)
        group = _Group(evidence, per_arm, per_phase, inp, conc)
        pooled: dict[str, dict[str, Pooled]] = {
            metric: {phase: pooled_statistics([r for rs in per_phase[phase] for r in rs], metric) for phase in PHASES} for metric in METRICS
        }
        loads = _loads(wl.open_loop, trial.slo, per_phase)
        centres: dict[str, Mapping[str, float | None]] = {metric: {phase: pooled[metric][phase].median for phase in PHASES} for metric in METRICS}
        if loads is not None and trial.slo is not None:
            centres["goodput"] = {phase: loads[phase].share for phase in PHASES}
        comparisons = {metric: _comparisons(centres[metric], metric == rule.metric, rule, metric == "goodput") for metric in centres}
        guardrails = [_guardrail(group, pooled, g) for g in rule.guardrails]
        drift = pct(change(centres[rule.metric]["restored"], centres[rule.metric]["before"]))
        held = all(g.checked and not g.breached for g in guardrails)
        intervals, verdict, detectable = _judged(group, rule, comparisons[rule.metric], drift, held, strictest)
        tokens = prompt_tokens.get(inp, [])
        label = input_label(tokens)
        # goodput's share has no tail: its tail intervals are none.
        tails = (
            [] if rule.statistic == "share" else group.intervals(rule.metric, "p90", group.method) + group.intervals(rule.metric, "p99", group.method)
        )
        results.append(
            GroupResult(
                input_nominal=inp,
                concurrency=None if wl.open_loop else int(conc),
                rate=float(conc) if wl.open_loop else None,
                label=f"{label}/{wl.load_label(conc)}",
                input_label=label,
                input_tokens_min=min(tokens) if tokens else None,
                input_tokens_max=max(tokens) if tokens else None,
                pooled=pooled,
                comparisons=comparisons,
                intervals=intervals,
                request_intervals=group.intervals(rule.metric, rule.statistic, "request"),
                tail_intervals=tails,
                detectable_pct=detectable,
                guardrails=guardrails,
                verdict=verdict,
                design=design_result(
                    trial.arms, [_values(rs, rule.metric, trial.slo) for rs in per_arm], of=mean if rule.statistic == "share" else median
                ),
                load=loads,
                shared_prefix=trial.workload.prefixed(inp),
                cache_hits=cache_hits(per_phase),
                turns=turn_results(per_phase, rule),
            )
        )
    return results
