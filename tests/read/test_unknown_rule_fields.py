"""A trial.json whose decision rule carries a field the analysis does not know must be refused, not applied
as the defaults: the plan refuses them (PlanDecisionRule), trial.json let them through (Record allows extras),
so a misspelt ``confidance = "bound"`` or ``promote-if = "all-groups"`` was analysed, published and verified
as the laxer default rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.canonical import canonical_json
from tests.analyze.bundle import flat, write_bundle


def _with_rule(tmp_path: Path, edit) -> Path:
    bundle = write_bundle(tmp_path, "t", "ABA", [flat(2.0), flat(1.7), flat(2.0)])
    path = bundle / "trial.json"
    trial = json.loads(path.read_text())
    edit(trial["decision_rule"])
    path.write_bytes(canonical_json(trial, sort_keys=False, ascii_only=True))
    return bundle


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda r: r.update(confidance="bound"), "confidance"),
        (lambda r: r.update({"promote-if": "all-groups"}), "promote-if"),
        (lambda r: r.update(guardrails=[{"metric": "ttft_s", "statistc": "p99", "max_regression": 0.05}]), "statistc"),
    ],
)
def test_an_unknown_rule_field_in_trial_json_is_refused(run_cli, tmp_path: Path, edit, field: str) -> None:
    bundle = _with_rule(tmp_path, edit)
    result = run_cli("analyze", bundle)
    assert result.code == 2, result.out[:300]
    assert len(result.err.strip().splitlines()) == 1
    assert str(bundle / "trial.json") in result.err and field in result.err
