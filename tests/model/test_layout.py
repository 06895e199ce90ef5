"""The contract's layout: each kind admits its examples and refuses its near misses; the docs are generated."""

from __future__ import annotations

import pytest

from evidence_kit.model.layout import FILE_KINDS, FORMAT_RECORDS, file_kind, layout_markdown, layout_problem

from ..conftest import REPO

ADMITTED = [(k.name, e, k.place) for k in FILE_KINDS for e in k.examples]
REFUSED = [(k.name, e, k.place) for k in FILE_KINDS for e in k.refused]


@pytest.mark.parametrize("kind,path,place", ADMITTED)
def test_each_kind_admits_its_examples(kind: str, path: str, place: str) -> None:
    found = file_kind(path, "trial" if place == "folder" else place)  # type: ignore[arg-type]
    assert found is not None and found.name == kind


@pytest.mark.parametrize("kind,path,place", REFUSED)
def test_no_kind_admits_a_near_miss(kind: str, path: str, place: str) -> None:
    assert file_kind(path, "trial" if place == "folder" else place) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["report.html", "NOTES.XHTML", "verdict.svg", "README.md", "index.htm", "chart.png", "notes.txt"])
def test_a_page_an_image_or_a_note_is_no_evidence_anywhere(name: str) -> None:
    for path in (name, f"journals/{name}", f"logs/{name}", f"telemetry/{name}"):
        assert layout_problem(path, None) is not None
        assert layout_problem(f"dflash/{path}", ["dflash"]) is not None
    assert layout_problem(name, ["dflash"]) is not None


def test_a_trial_bundle_s_files_are_evidence_in_its_decision_folder_only_under_a_named_trial() -> None:
    assert layout_problem("dflash/journals/01-original-before.jsonl", ["dflash"]) is None
    assert layout_problem("dflash/journals/01-original-before.jsonl", ["cache-layout"]) == (
        "not a file of the evidence contract: it is in no trial bundle decision.toml names (docs/contract.md, Layout)"
    )
    assert layout_problem("decision.toml", ["dflash"]) is None and layout_problem("dflash/decision.toml", ["dflash"]) is not None
    assert layout_problem("trial.json", ["dflash"]) is not None  # a decision folder's top is not a bundle


def test_a_hidden_file_or_folder_is_no_evidence() -> None:
    for path in (".trial.json", ".git/config", "journals/.01.jsonl", ".dflash/trial.json"):
        assert layout_problem(path, None) is not None
        assert layout_problem(path, [".dflash"]) is not None


def test_the_message_names_what_a_bundle_holds() -> None:
    assert layout_problem("verdict.svg", None) == (
        "not a file of the evidence contract (a trial bundle holds trial.json, journals/*.jsonl, telemetry/*.jsonl, "
        "logs/*.log, *.<reader>.json, manifest.json, receipt.json, manifest.dsse.json, signing.pub; docs/contract.md, Layout)"
    )


def test_the_format_records_are_the_redactor_s_readers() -> None:
    from evidence_kit.redact.formats import READERS

    assert sorted(FORMAT_RECORDS) == sorted(r.name for r in READERS)


def test_contract_md_s_layout_table_is_generated_from_the_kinds() -> None:
    from evidence_kit.redact.reference import LAYOUT_BEGIN, LAYOUT_END

    page = (REPO / "docs" / "contract.md").read_text()
    generated = page[page.index(LAYOUT_BEGIN) + len(LAYOUT_BEGIN) : page.index(LAYOUT_END)].strip()
    assert generated == layout_markdown().strip(), (
        "docs/contract.md's layout is stale: run `python -m evidence_kit.redact.reference docs/redaction.md docs/contract.md`"
    )
