"""The README: the two commands first, then a tour whose output is real (its commands are run here and
compared), then a command table that names every command the CLI has, then times with the load stated."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from evidence_kit.cli import COMMANDS
from tests.conftest import REPO
from tests.docs.examples import matches, run_page, steps

README = REPO / "README.md"


def _sections() -> list[str]:
    return re.findall(r"^## (.+)$", README.read_text(), re.M)


def test_the_readme_runs_commands_then_tour_then_table_then_times() -> None:
    text = README.read_text()
    assert text.index("scripts/demo") < text.index("## A short tour")
    order = [name for name in _sections() if name in ("A short tour", "Commands", "Times")]
    assert order == ["A short tour", "Commands", "Times"]


def test_the_tour_shows_what_its_commands_print(tmp_path: Path) -> None:
    shutil.copytree(REPO / "evidence", tmp_path / "evidence")
    tour = README.read_text().split("## A short tour", 1)[1].split("\n## Commands", 1)[0]
    page = tmp_path / "tour.md"
    page.write_text(tour)
    ran = run_page(page, tmp_path)
    assert len(ran) == len(steps(tour)) >= 3
    for step in ran:
        assert step.code == step.expected_code, f"`{step.command}` exited {step.code}:\n{step.output}"
        assert matches(step.shown, step.output), f"`{step.command}` printed\n{step.output}\nthe README shows\n{step.shown}"


def test_the_command_table_names_every_command_once() -> None:
    table = README.read_text().split("## Commands", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^\| `evidence-kit ([a-z]+)\b", table, re.M)
    assert sorted(named) == sorted(COMMANDS), f"README's table names {sorted(named)}, the CLI has {sorted(COMMANDS)}"
    assert len(named) == len(set(named))


def test_each_time_states_the_load_it_was_measured_at() -> None:
    times = README.read_text().split("## Times", 1)[1].split("\n## ", 1)[0]
    measured = [item for item in re.split(r"\n- ", times)[1:] if re.search(r"\*\*\d", item)]
    assert measured, "the README states no measured time"
    for item in measured:
        assert "load average" in item, f"a time without its load: {item[:80]!r}"
