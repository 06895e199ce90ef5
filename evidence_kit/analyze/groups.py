"""Per-group figures: pooled medians, comparisons against each control, intervals, verdict."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import CONTROLS, PHASES, DecisionRule, Request
from ..model.evidence import TrialEvidence
from .design import design_result
from .report import Comparison, GroupResult, Interval, Pooled, Verdict
from .stats import bootstrap_ratio_interval, change, median, seed_for

__all__ = ["METRICS", "CONTROLS", "group_results", "input_label", "pct"]

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


def _values(requests: Sequence[Request], metric: str) -> list[float]:
    """The metric of every ok timed request (warmup and failed requests never enter a statistic)."""
    out: list[float] = []
    for r in requests:
        if r.warmup or not r.ok:
            continue
        value = getattr(r, metric)
        if value is not None:
            out.append(value)
    return out


def _by_group(evidence: TrialEvidence) -> dict[int, dict[tuple[int, int], list[Request]]]:
    """Arm seq -> group -> the arm's timed requests."""
    table: dict[int, dict[tuple[int, int], list[Request]]] = {}
    for arm in evidence.arms:
        cells = table.setdefault(arm.ref.seq, {})
        for r in arm.requests:
            if not r.warmup:
                cells.setdefault((r.input_nominal, r.concurrency), []).append(r)
    return table


def _reaches_threshold(pct_value: float | None, rule: DecisionRule) -> bool:
    # Compare in percent with a tolerance far below any displayed digit, so a row
    # sitting exactly on the threshold (10.00 %) is not lost to binary rounding.
    return pct_value is not None and pct_value >= rule.min_improvement * 100 - 1e-9


def group_results(evidence: TrialEvidence) -> list[GroupResult]:
    """Every group of the trial's workload, in plan order."""
    trial = evidence.trial
    rule = trial.decision_rule
    cells = _by_group(evidence)
    prompt_tokens: dict[int, list[int]] = {}
    for arm_cells in cells.values():
        for (inp, _), requests in arm_cells.items():
            prompt_tokens.setdefault(inp, []).extend(
                r.prompt_tokens for r in requests if r.ok and r.prompt_tokens is not None
            )
    results: list[GroupResult] = []
    for inp, conc in trial.workload.groups():
        per_arm = [cells.get(ref.seq, {}).get((inp, conc), []) for ref in trial.arms]
        # Pooled: before the first control block, candidate every candidate block, restored the last control block.
        per_phase: dict[str, list[Request]] = {
            phase: [r for ref, rs in zip(trial.arms, per_arm) if trial.pooled_in(ref) == phase for r in rs]
            for phase in PHASES
        }
        pooled: dict[str, dict[str, Pooled]] = {
            metric: {phase: _pooled(per_phase[phase], metric) for phase in per_phase} for metric in METRICS
        }
        comparisons = {metric: _comparisons(pooled[metric], metric == rule.metric, rule) for metric in METRICS}
        decisive = {c.control: c for c in comparisons[rule.metric]}
        clears_before = decisive["before"].clears is True
        clears_restored = decisive["restored"].clears is True
        drift = pct(change(pooled[rule.metric]["restored"].median, pooled[rule.metric]["before"].median))
        verdict = Verdict(
            win=clears_before and clears_restored,
            clears_before=clears_before,
            clears_restored=clears_restored,
            split=clears_before != clears_restored,
            control_drift_pct=drift,
            drift_flagged=drift is not None and _reaches_threshold(abs(drift), rule),
        )
        tokens = prompt_tokens.get(inp, [])
        label = input_label(tokens)
        results.append(
            GroupResult(
                input_nominal=inp,
                concurrency=conc,
                label=f"{label}/C{conc}",
                input_label=label,
                input_tokens_min=min(tokens) if tokens else None,
                input_tokens_max=max(tokens) if tokens else None,
                pooled=pooled,
                comparisons=comparisons,
                intervals=_intervals(evidence, per_phase, inp, conc),
                verdict=verdict,
                design=design_result(trial.arms, [_values(rs, rule.metric) for rs in per_arm]),
            )
        )
    return results


def _pooled(requests: Sequence[Request], metric: str) -> Pooled:
    values = _values(requests, metric)
    return Pooled(median=median(values), n=len(values))


def _comparisons(pooled: dict[str, Pooled], decisive: bool, rule: DecisionRule) -> list[Comparison]:
    out = []
    for control in CONTROLS:
        rel = change(pooled["candidate"].median, pooled[control].median)
        improvement = None if rel is None else -rel * 100
        out.append(
            Comparison(
                control=control,
                change_pct=pct(rel),
                improvement_pct=improvement,
                clears=_reaches_threshold(improvement, rule) if decisive else None,
            )
        )
    return out


def _intervals(evidence: TrialEvidence, per_phase: dict[str, list[Request]], inp: int, conc: int) -> list[Interval]:
    metric = evidence.trial.decision_rule.metric
    candidate = _values(per_phase["candidate"], metric)
    out = []
    for control in CONTROLS:
        values = _values(per_phase[control], metric)
        seed = seed_for("evidence-kit/bootstrap/v1", evidence.trial.trial_id, metric, inp, conc, control)
        interval = bootstrap_ratio_interval(candidate, values, seed)
        mc, mk = median(candidate), median(values)
        ratio = None if mc is None or not mk else mc / mk
        low, high = interval if interval else (None, None)
        out.append(
            Interval(
                control=control,
                ratio=ratio,
                low=low,
                high=high,
                resolvable=interval is not None and (high < 1 or low > 1),  # type: ignore[operator]
            )
        )
    return out
