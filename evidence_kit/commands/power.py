"""``evidence-kit power``: how many repetitions of how many requests a trial needs, from a pilot."""

from __future__ import annotations

from pathlib import Path

import click

from ..analyze.plan_v4 import PlanRefused, plan_lines
from ..analyze.power import MAX_REPETITIONS, GroupPower, PowerReport, TrialPower, power_report
from ..canonical import canonical_json
from ..errors import BadInput
from ..model.evidence import TrialEvidence
from ..read import load_any, require_completed
from .params import FiniteFloatRange


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _requests(n: int) -> str:
    return f"{n} request" if n == 1 else f"{n} requests"


def _group_lines(group: GroupPower, effect: str, max_repetitions: int) -> list[str]:
    if not group.plans:
        return [f"  {group.label}: no timed values in the control arms: nothing to plan from"]
    first, *more = group.plans
    resolves = "the analysis drew no interval" if group.detectable_pct is None else f"this data resolves {_pct(group.detectable_pct)}"
    at_least = "at least " if group.run_df == 0 else "about "
    if first.repetitions is None:
        need = (
            f"more than {max_repetitions} repetitions of {_requests(first.requests_per_run)} ({max_repetitions} resolve {_pct(first.detectable_pct)})"
        )
    else:
        need = f"{at_least}{first.repetitions} repetitions of {_requests(first.requests_per_run)}"
    lines = [f"  {group.label}: to resolve a {effect} change with 95% confidence and 80% power you need {need} ({resolves})"]
    run_sd = "unknown" if group.run_sd_pct is None else f"{_pct(group.run_sd_pct)} ({group.run_df} degrees of freedom)"
    request_sd = "not separable" if group.request_sd_pct is None else _pct(group.request_sd_pct)
    others = "; ".join(
        f"{_requests(p.requests_per_run)} per run: "
        + (f"more than {max_repetitions}" if p.repetitions is None else f"{p.repetitions}")
        + " repetitions"
        for p in more
    )
    lines.append(
        f"    noise (sd of log values): run-to-run {run_sd}, request-to-request {request_sd} "
        f"({group.control_runs} control runs, {group.control_requests} requests)" + (f"; {others}" if others else "")
    )
    if group.run_df == 0:
        lines.append("    run-to-run noise cannot be estimated from one run per control arm: the plan assumes none")
    if group.request_df == 0:
        lines.append(
            "    request-to-request noise cannot be told from run-to-run noise (one request per run): "
            "the plan counts it all as run noise, so more requests per run do not help it"
        )
    if group.predicted_pct is not None:
        lines.append(
            f"    at this trial's shape ({group.pilot_repetitions} x {group.pilot_requests_per_run}) the model resolves {_pct(group.predicted_pct)}"
        )
    if group.drift_beyond_noise and group.control_drift_pct is not None:
        lines.append(
            f"    the two controls differ by {_pct(abs(group.control_drift_pct))}, more than their noise explains: "
            "repetitions do not shrink a difference between arms (restarts, drift)"
        )
    if group.excluded:
        lines.append(f"    {group.excluded} values that are not positive were left out")
    return lines


def _trial_text(trial: TrialPower, effect: str, max_repetitions: int) -> str:
    lines = [f"{trial.trial_id}: {trial.title}", f"  pooled median of {trial.metric}; noise from the two control arms (before and restored)"]
    for group in trial.groups:
        lines.extend(_group_lines(group, effect, max_repetitions))
    return "\n".join(lines) + "\n"


def render_power(report: PowerReport) -> str:
    """The text ``evidence-kit power`` prints."""
    effect = f"{report.effect_pct:g}%"
    return "\n".join(_trial_text(t, effect, report.max_repetitions) for t in report.trials)


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--effect",
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    default=0.10,
    show_default=True,
    help="The change to resolve, as a fraction (0.10 is 10%).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the plan (evidence-kit/power/v1) as JSON.")
def power(path: Path, effect: float, as_json: bool) -> None:
    """Plan a trial from a pilot: for each group of the trial bundle or decision folder at PATH, how many
    repetitions of how many requests resolve a change of --effect with 95% confidence and 80% power.

    A pilot whose rule declares statistics = 4 is planned by simulating the rule itself, design by design.

    Exit 0, or 2 when PATH is unreadable, breaks the evidence contract or holds a trial in which no timed
    request completed, or when a statistics 4 pilot cannot estimate the launch noise (A/B/A).
    """
    evidence = require_completed(load_any(path))
    trials = [evidence] if isinstance(evidence, TrialEvidence) else evidence.trials
    goodput = [t.trial.trial_id for t in trials if t.trial.decision_rule.metric == "goodput"]
    if goodput:
        raise BadInput(
            f"trial {goodput[0]!r} is judged by goodput: power plans a latency rule (on its log scale), and a goodput share has none", path
        )
    conversations = [t.trial for t in trials if t.trial.workload.turns]
    if conversations:
        wl = conversations[0].workload
        raise BadInput(
            f"trial {conversations[0].trial_id!r} is multi-turn ({wl.requests_per_run} conversations of "
            f"{wl.turns} turns a run): power resamples independent, alike requests, and a conversation's "
            "turns are neither (each re-sends the history before it); plan from a single-turn pilot",
            path,
        )
    if any(t.trial.decision_rule.version == 4 for t in trials):
        # Statistics v4: plan by simulating the rule itself (analyze/plan_v4.py).
        if as_json:
            raise BadInput("--json prints the v3 plan (evidence-kit/power/v1); a statistics 4 pilot's plan is printed as text", path)
        try:
            lines = [line for t in trials for line in plan_lines(t, effect, decision_trials=len(trials))]
        except PlanRefused as refused:
            raise BadInput(str(refused), path) from None
        click.echo("\n".join(lines))
        return
    report = power_report(trials, effect, max_repetitions=MAX_REPETITIONS)
    if as_json:
        click.echo(canonical_json(report.model_dump(mode="json", by_alias=True)).decode(), nl=False)
        return
    click.echo(render_power(report), nl=False)
