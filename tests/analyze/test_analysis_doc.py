"""docs/analysis.md's worked example is what ``analyze`` computes from the reference reconstruction:
every number it walks through, recomputed here, so the page cannot go stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.analyze.report import GroupResult
from evidence_kit.analyze.stats import Z_LEVEL, Z_POWER
from evidence_kit.analyze.verdicts import regression_floor_pct
from evidence_kit.present import (
    comparison_rows,
    detectable_text,
    faster_slower,
    finding_sentence,
    interval_text,
    percent,
    ratio,
    seconds,
)
from evidence_kit.read import load_decision

from ..conftest import REPO

DOC = (REPO / "docs" / "analysis.md").read_text()
HEADING = "## Worked example: cache-layout, ~25K/C4"


def _example() -> str:
    """The worked example's section, heading to the next heading of its level."""
    start = DOC.index(HEADING)
    end = DOC.find("\n## ", start + len(HEADING))
    return DOC[start : end if end != -1 else None]


def _group(decision: Path) -> GroupResult:
    trial = analyze(load_decision(decision)).trials[0]
    return next(g for g in trial.groups if g.label == "~25K/C4")


def _said(text: str, *figures: str) -> None:
    for figure in figures:
        assert figure in text, f"docs/analysis.md's worked example does not say {figure!r}"


def test_the_worked_example_is_what_analyze_computes(reference_decision: Path) -> None:
    text = " ".join(_example().split())  # words, whatever the line breaks
    evidence = load_decision(reference_decision)
    trial = analyze(evidence).trials[0]
    group = next(g for g in trial.groups if g.label == "~25K/C4")
    assert trial.trial_id == "cache-layout" and (group.input_nominal, group.concurrency) == (32768, 4)
    assert trial.rule.min_improvement_pct == 10 and trial.rule.confidence == "point"
    assert trial.rule.promote_if == "any-group"
    # The medians, from the before arm's twelve requests.
    before = next(arm for arm in evidence.trials[0].arms if arm.ref.phase == "before")
    values = sorted(
        r.e2e_s for r in before.requests if not r.warmup and r.ok and r.input_nominal == 32768 and r.concurrency == 4 and r.e2e_s is not None
    )
    assert len(values) == 12 and len({r.run for r in before.requests if not r.warmup and r.input_nominal == 32768 and r.concurrency == 4}) == 3
    _said(
        text,
        ", ".join(seconds(v) for v in values[:5]),
        ", ".join(seconds(v) for v in values[-5:]),
        f"sixth and seventh are both {seconds(values[5])}",
    )
    assert values[5] == values[6]
    pooled = group.pooled["e2e_s"]
    _said(text, *(f"**{seconds(pooled[p].median)}**" for p in ("before", "candidate", "restored")))
    # The changes, the ratios and the drift.
    intervals = {i.control: i for i in group.intervals}
    requests = {i.control: i for i in group.request_intervals}
    _said(text, *(f"**{faster_slower(c.change_pct)}**" for c in group.comparisons["e2e_s"]))
    _said(text, *(f"is a ratio of {ratio(intervals['before'].ratio)}", f"= {ratio(intervals['restored'].ratio)}"))
    assert not any(c.clears for c in group.comparisons["e2e_s"])
    _said(text, f"restored original is {faster_slower(group.verdict.control_drift_pct)} than the one before")
    assert not group.verdict.drift_flagged
    # The intervals, run-level and request-level.
    _said(text, *(f"**{interval_text(intervals[c])}**" for c in ("before", "restored")))
    assert all(i.resolvable for i in group.intervals)
    _said(text, f"they are {interval_text(requests['before'])} and {interval_text(requests['restored'])}.")
    # The smallest resolvable change.
    factor = (Z_LEVEL + Z_POWER) / Z_LEVEL
    for control in ("before", "restored"):
        i = intervals[control]
        _said(text, f"({ratio(i.high)} − {ratio(i.low)}) / 2 = {(i.high - i.low) / 2:.4f}")
    _said(
        text,
        f"({Z_LEVEL:.3f} + {Z_POWER:.3f}) / {Z_LEVEL:.3f} = {factor:.4f}",
        "give " + " and ".join(percent((i.high - i.low) / 2 * factor * 100) for i in group.intervals),
        f"**{detectable_text(group)}**",
        f"differences under {detectable_text(group)} are not resolvable",
    )
    # The verdict, at the declared confidence, and the finding.
    floor = regression_floor_pct(trial.rule.min_improvement_pct)
    assert all(c.change_pct >= floor for c in group.comparisons["e2e_s"])
    _said(text, f"each at least {floor:g} %", f"**{group.verdict.verdict}**")
    finding = next(f for f in trial.findings if f.group == "~25K/C4" and f.kind == "regression")
    _said(text, f'"{finding_sentence(finding, trial.candidate_label)}"')
    # The tails.
    tails = {(i.statistic, i.control): i for i in group.tail_intervals}
    for stat in ("p90", "p99"):
        i = tails[(stat, "before")]
        _said(
            text,
            f"{stat} ratio against the original before is {ratio(i.ratio)}, in {interval_text(i)}"
            if stat == "p90"
            else f"{stat} ratio {ratio(i.ratio)}, in {interval_text(i)}",
        )
    # The row as the page prints it.
    row = next(r for r in comparison_rows(trial) if r[0] == "~25K/C4")
    _said(text, "| " + " | ".join(row) + " |")


@pytest.mark.parametrize("confidence, verdict", [("significant", "regression"), ("bound", "no-win")])
def test_the_worked_example_under_another_confidence(reference_decision: Path, confidence: str, verdict: str) -> None:
    path = reference_decision / "cache-layout" / "trial.json"
    trial = json.loads(path.read_text())
    trial["decision_rule"]["confidence"] = confidence
    path.write_text(json.dumps(trial))
    group = _group(reference_decision)
    assert group.verdict.verdict == verdict
    flat = " ".join(_example().split())
    _said(flat, f'`confidence = "{confidence}"`' if confidence == "significant" else f'with `"{confidence}"`')
    if verdict == "no-win":
        _said(flat, f"would be **{verdict}**")
        assert all(i.low > 1 - 0.10 for i in group.intervals)
    else:
        _said(flat, f"it would still be a {verdict}")
