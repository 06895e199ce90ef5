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


def _every_command_section() -> str:
    match = re.search(r"^## Options of every command\b.*?(?=^## |\Z)", CLI_DOC, re.S | re.M)
    assert match, "docs/cli.md has no '## Options of every command' section"
    return match.group(0)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_and_options_documented(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.help, f"{name} has no help text"
    section = _section(name)
    shared = {flag for param in cli.params for flag in param.opts}  # every command's: documented once
    for param in command.params:
        if isinstance(param, click.Option):
            for flag in param.opts:
                if flag.startswith("--") and flag != "--help":
                    where = _every_command_section() if flag in shared else section
                    assert flag in where, f"docs/cli.md does not document {name} {flag}"


def test_the_options_of_every_command_are_documented_once() -> None:
    section = _every_command_section()
    for param in cli.params:
        for flag in param.opts:
            if flag != "--help":
                assert f"`{flag}`" in section, flag
    for name in COMMANDS:  # and every command takes them
        command = cli.get_command(click.Context(cli), name)
        assert command is not None and {"--verbose", "--log-level"} <= {f for p in command.params for f in p.opts}, name


def test_bare_evidence_kit_prints_its_help_and_exits_0(run_cli) -> None:
    result = run_cli()
    assert result.code == 0 and "Commands:" in result.out and "build" in result.out


def test_log_lines_are_plain_single_lines_on_stderr(tmp_path, run_cli) -> None:
    samples = REPO / "tests" / "import_samples" / "aiperf"
    args = [a for p in ("before", "candidate", "restored") for a in (f"--{p}", str(samples / f"{p}.jsonl"))]
    quiet = run_cli("import", *args, "--out", tmp_path / "a")
    assert quiet.code == 0 and "info:" not in quiet.err
    loud = run_cli("-v", "import", *args, "--out", tmp_path / "b")
    lines = [line for line in loud.err.splitlines() if line]
    assert loud.code == 0 and len(lines) == 3 and all(line.startswith("evidence-kit: info: ") for line in lines), loud.err
    after = run_cli("import", *args, "--out", tmp_path / "c", "--log-level", "INFO")
    assert after.err == loud.err.replace(str(tmp_path / "b"), str(tmp_path / "c"))


def test_completion_completes_commands(monkeypatch, capsys) -> None:
    monkeypatch.setenv("_EVIDENCE_KIT_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "evidence-kit bu")
    monkeypatch.setenv("COMP_CWORD", "1")
    with pytest.raises(SystemExit) as done:
        cli.main(args=[], prog_name="evidence-kit")
    assert done.value.code == 0 and "plain,build" in capsys.readouterr().out


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
