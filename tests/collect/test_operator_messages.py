"""Operator UX of 3ff0e14: the required [decision_rule] and collect's printed next commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.collect.plan import load_plan
from evidence_kit.commands.collect import next_steps
from evidence_kit.errors import BadInput
from tests.collect.conftest import write_plan
from tests.printed import printed_commands


def test_a_misspelt_decision_rule_table_is_named_with_its_line(tmp_path: Path) -> None:
    # `[decision_rules]` (a plural typo): the "no [decision_rule] table" check runs before the unknown-field
    # check, so the message says the table is missing, names no line and never mentions the table the
    # operator did write. Expected: the unknown table named, located at its header line.
    plan = write_plan(tmp_path / "plan.toml")
    plan.write_text(plan.read_text().replace("[decision_rule]", "[decision_rules]"))
    with pytest.raises(BadInput) as info:
        load_plan(plan)
    assert "decision_rules" in str(info.value) and info.value.line is not None, str(info.value)


def test_next_commands_survive_a_folder_with_a_space(tmp_path: Path) -> None:
    # The printed commands are meant to be pasted; an --out with a space splits into two arguments.
    # Expected: paths shell-quoted.
    out = tmp_path / "my trial"
    redact = next(args for args in printed_commands(next_steps(out, "t")) if args[0] == "redact")
    assert redact[1] == str(out), redact
