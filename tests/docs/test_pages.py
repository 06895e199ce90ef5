"""Every page written for a reader with a job opens with what it is for and shows a complete example, and
that example runs: its files are written and its commands run in an empty folder, against the simulator
where a trial is collected, and each output is what the page shows (tests/docs/examples.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidence_kit.collect.plan import load_plan
from tests.conftest import REPO
from tests.docs.examples import matches, run_page, steps

DOCS = REPO / "docs"
SAMPLES = REPO / "tests" / "import_samples" / "vllm-bench"
THREE_FILES = {f"{phase}.json": SAMPLES / f"{phase}.json" for phase in ("before", "candidate", "restored")}
EVIDENCE = {"evidence": REPO / "evidence"}

# What each page says its reader starts with (its first paragraphs name it), copied into the empty folder.
PAGES: dict[str, dict[str, Path]] = {
    "index.md": {},
    "tutorial.md": {},
    "how-to/publish-a-vllm-trial.md": {},
    "how-to/import-three-result-files.md": THREE_FILES,
    "how-to/redact-with-a-policy.md": THREE_FILES,
    "how-to/verify-a-site.md": EVIDENCE,
    "how-to/add-decisions-to-mkdocs.md": EVIDENCE,
    "explanation/why-aba.md": EVIDENCE,
    "explanation/what-verify-proves.md": EVIDENCE,
    "explanation/statistics.md": EVIDENCE,
}
# Pages whose example collects a trial from the simulator or builds a site (MkDocs, tens of seconds each).
SLOW = {"tutorial.md", "how-to/import-three-result-files.md", "how-to/verify-a-site.md", "how-to/add-decisions-to-mkdocs.md"}


def prepare(page: str, work: Path) -> None:
    """Copy what ``page``'s reader starts with into ``work``."""
    for name, source in PAGES[page].items():
        if source.is_dir():
            shutil.copytree(source, work / name)
        else:
            shutil.copyfile(source, work / name)


def _marks(page: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.slow] if page in SLOW else []


@pytest.mark.parametrize("page", PAGES)
def test_the_page_opens_with_what_it_is_for_and_shows_an_example(page: str) -> None:
    text = (DOCS / page).read_text()
    title, _, rest = text.partition("\n\n")
    assert title.startswith("# "), f"{page} opens with its title"
    opening = rest.split("\n\n")[0]
    assert "```" not in opening and len(opening.split()) >= 12, f"{page}: its first paragraph says what it is for"
    assert steps(text), f"{page} shows no example (a console block or a titled file)"
    long = [s for s in opening.replace("\n", " ").split(". ") if len(s.split()) > 40]
    assert not long, f"{page}: a sentence of more than 40 words opens it: {long[0]!r}"


@pytest.mark.parametrize("page", [pytest.param(p, marks=_marks(p)) for p in PAGES])
def test_the_pages_example_runs_as_shown(page: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    prepare(page, work)
    for ran in run_page(DOCS / page, work):
        assert ran.code == ran.expected_code, f"{page}: `{ran.command}` exited {ran.code}, not {ran.expected_code}:\n{ran.output}"
        assert matches(ran.shown, ran.output), f"{page}: `{ran.command}` printed\n{ran.output}\nthe page shows\n{ran.shown}"


def test_the_vllm_pages_plan_is_a_valid_plan(tmp_path: Path) -> None:
    """The vLLM page's plan cannot run here (no GPU); it is the plan collect would run, validated as collect does."""
    files = [s for s in steps((DOCS / "how-to" / "publish-a-vllm-trial.md").read_text()) if s.path == "vllm.toml"]
    assert len(files) == 1, "the vLLM page shows its plan as a TOML block titled vllm.toml"
    path = tmp_path / "vllm.toml"
    path.write_text(files[0].text)
    assert load_plan(path).engine_kind == "vllm"
