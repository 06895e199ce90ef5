"""A trial's charts, a page's article and the schemas are made once per process for the same input, and each
caller gets its own copy: a caller that changes what it got changes nothing for the next one."""

from __future__ import annotations

import pytest

from evidence_kit.analyze import Analysis
from evidence_kit.examples.reference import write_reference_decision
from evidence_kit.model.evidence import DecisionEvidence
from evidence_kit.publish import load_decisions
from evidence_kit.render import charts
from evidence_kit.render.article import article_html
from evidence_kit.schemas import schemas


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[DecisionEvidence, Analysis]]:
    return load_decisions([write_reference_decision(tmp_path_factory.mktemp("reference") / "decision")])


def test_a_trial_is_drawn_once_and_each_caller_gets_charts_of_its_own(loaded, monkeypatch: pytest.MonkeyPatch) -> None:
    trial = loaded[0][1].trials[0]
    drawn = []
    draw = charts._draw
    monkeypatch.setattr(charts, "_draw", lambda t, rows: (drawn.append(t.trial_id), draw(t, rows))[1])
    monkeypatch.setattr(charts, "_DRAWN", type(charts._DRAWN)(charts._DRAWN.budget))  # nothing drawn yet
    first = charts.trial_charts(trial)
    first[next(iter(first))].spec["title"] = "changed by its caller"
    second = charts.trial_charts(trial)
    assert drawn == [trial.trial_id]
    assert all("changed by its caller" != c.spec.get("title") for c in second.values())
    assert {n: c.svg for n, c in second.items()} == {n: c.svg for n, c in charts._draw(trial, None).items()}


def test_another_analysis_is_drawn_anew(loaded, monkeypatch: pytest.MonkeyPatch) -> None:
    trial = loaded[0][1].trials[0]
    other = trial.model_copy(update={"title": trial.title + " (another)"})
    drawn = []
    draw = charts._draw
    monkeypatch.setattr(charts, "_draw", lambda t, rows: (drawn.append(t.title), draw(t, rows))[1])
    charts.trial_charts(trial)
    charts.trial_charts(other)
    charts.trial_charts(trial, [])
    assert other.title in drawn


def test_an_article_is_rendered_anew_for_another_text_or_configuration() -> None:
    config = b"markdown_extensions:\n- tables\n"
    assert article_html(b"# One\n", config) == article_html(b"# One\n", config)
    assert article_html(b"# One\n", config) != article_html(b"# Two\n", config)
    note = b"!!! note\n    kept\n"
    assert article_html(note, b"markdown_extensions:\n- admonition\n") != article_html(note, config)


def test_the_schemas_are_a_fresh_copy_each_call() -> None:
    first = schemas()
    first["trial"]["$id"] = "changed by its caller"
    first.pop("manifest", None)
    again = schemas()
    assert again["trial"]["$id"] != "changed by its caller" and "manifest" in again
