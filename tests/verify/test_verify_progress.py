"""`evidence-kit verify` shows its progress on stderr, as build does (evidence_kit.progress): one status line on a
terminal, a step for listing the files and one for each check, erased before the report; off a terminal plain
lines only with -v; nothing with -q or --json. Stdout carries the report alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.verify.run import CHECKS, DOING

from ..terminal import ERASE, on_a_terminal

pytestmark = pytest.mark.slow  # a real site

STEPS = ["listing the files", *(DOING[name] for name, _ in CHECKS)]


def test_on_a_terminal_one_status_line_goes_through_every_check_and_is_erased(site: Path, keypair) -> None:
    code, out, terminal = on_a_terminal("verify", str(site), "--key", str(keypair[1]))
    assert code == 0, terminal
    shown = [f"{ERASE}evidence-kit: verify {n}/{len(STEPS)}: {text}" for n, text in enumerate(STEPS, 1)]
    positions = [terminal.find(line) for line in shown]
    assert -1 not in positions and positions == sorted(positions), terminal
    assert terminal.endswith(ERASE) and out.splitlines()[-1].startswith(f"verified: {site}: authenticated")
    assert "\x1b" not in out and "evidence-kit: verify" not in out


def test_quiet_and_json_show_no_progress_even_on_a_terminal(site: Path, keypair) -> None:
    for flag in ("-q", "--json"):
        code, _, terminal = on_a_terminal("verify", str(site), "--key", str(keypair[1]), flag)
        assert code == 0 and "evidence-kit: verify" not in terminal and ERASE not in terminal, (flag, terminal)


def test_off_a_terminal_plain_lines_only_with_verbose(run_cli, site: Path, keypair) -> None:
    assert "evidence-kit: verify" not in run_cli("verify", site, "--key", keypair[1]).err
    verbose = run_cli("verify", site, "--key", keypair[1], "-v")
    assert verbose.code == 0, verbose.err
    lines = [line for line in verbose.err.splitlines() if line.startswith("evidence-kit: verify ")]
    assert lines == [f"evidence-kit: verify {n}/{len(STEPS)}: {text}" for n, text in enumerate(STEPS, 1)]
    assert "\r" not in verbose.err and "\x1b" not in verbose.err
