"""Every command and every option is documented in docs/cli.md; the README starts with the two commands."""

from __future__ import annotations

import re

import click
import pytest

from evidence_kit.cli import COMMANDS, cli

from .conftest import REPO

CLI_DOC = (REPO / "docs" / "cli.md").read_text()


def _section(name: str) -> str:
    match = re.search(rf"^## `evidence-kit {re.escape(name)}\b.*?(?=^## |\Z)", CLI_DOC, re.S | re.M)
    assert match, f"docs/cli.md has no '## `evidence-kit {name} ...`' section"
    return match.group(0)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_and_options_documented(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.help, f"{name} has no help text"
    section = _section(name)
    for param in command.params:
        if isinstance(param, click.Option):
            for flag in param.opts:
                if flag.startswith("--") and flag != "--help":
                    assert flag in section, f"docs/cli.md does not document {name} {flag}"


def test_help_lists_every_command(run_cli) -> None:
    result = run_cli("--help")
    assert result.code == 0
    for name in COMMANDS:
        assert re.search(rf"^\s+{re.escape(name)}\b", result.out, re.M), name


def test_readme_starts_with_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```")[1]
    assert "scripts/demo" in first_block and "scripts/test" in first_block
    ci = (REPO / ".ci" / "run").read_text()
    assert "scripts/test" in ci
