"""A new trial's rule is judged by statistics v4 unless its plan names another version (issue 24: a
default rule whose win means what it says); the version is written into ``trial.json``, so the evidence
says which rule judged it."""

from __future__ import annotations

from pathlib import Path

from evidence_kit.collect import load_plan

from .conftest import write_plan


def _rule(tmp_path: Path, *lines: str) -> dict[str, object]:
    text = write_plan(tmp_path / "p.toml").read_text()
    text = text.replace(
        "[decision_rule]\nmin_improvement = 0.1\n", "[decision_rule]\nmin_improvement = 0.1\n" + "".join(f"{line}\n" for line in lines)
    )
    (tmp_path / "p.toml").write_text(text)
    return load_plan(tmp_path / "p.toml").trial().decision_rule.model_dump()


def test_a_plan_that_names_no_version_is_judged_by_v4_bound(tmp_path: Path) -> None:
    rule = _rule(tmp_path)
    assert rule["statistics"] == 4 and rule["confidence"] == "bound"


def test_a_plan_keeps_a_confidence_it_names_under_v4(tmp_path: Path) -> None:
    rule = _rule(tmp_path, 'confidence = "point"')
    assert rule["statistics"] == 4 and rule["confidence"] == "point"


def test_a_plan_that_names_version_3_keeps_the_original_point_rule(tmp_path: Path) -> None:
    rule = _rule(tmp_path, "statistics = 3")
    assert rule["statistics"] == 3 and rule["confidence"] == "point"
