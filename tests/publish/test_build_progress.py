"""`evidence-kit build` shows its progress on stderr: one status line on a terminal, rewritten step by step and
erased at the end; off a terminal plain lines only with -v; nothing with --json or -q."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..terminal import ERASE, on_a_terminal

pytestmark = pytest.mark.slow  # real builds

STEPS = (
    "loading and analysing 1 decision folder(s)",
    "rendering pages and charts",
    "running mkdocs build --strict",
    "writing the manifest",
    "scanning the site for private values",
)


def _build_on_a_terminal(*args: str) -> tuple[int, str, str]:
    return on_a_terminal("build", *args)


def test_on_a_terminal_one_status_line_goes_through_the_steps_and_is_erased(reference_bundle: Path, tmp_path: Path) -> None:
    code, out, terminal = _build_on_a_terminal(str(reference_bundle), "--out", str(tmp_path / "site"))
    assert code == 0, terminal
    shown = [f"{ERASE}evidence-kit: build {n}/5: {text}" for n, text in enumerate(STEPS, 1)]
    positions = [terminal.find(line) for line in shown]
    assert -1 not in positions and positions == sorted(positions), terminal
    # Erased before the command's own lines: what stays on screen is the warning, not a step.
    assert terminal.find(ERASE + "evidence-kit: warning: built without --known-values") > positions[-1], terminal
    assert "built 1 decision(s)" in out and "\x1b" not in out  # stdout carries no progress


def test_quiet_shows_no_progress_even_on_a_terminal(reference_bundle: Path, tmp_path: Path) -> None:
    code, _, terminal = _build_on_a_terminal(str(reference_bundle), "--out", str(tmp_path / "site"), "-q")
    assert code == 0, terminal
    assert "evidence-kit: build" not in terminal and ERASE not in terminal


def test_off_a_terminal_plain_lines_only_with_verbose_and_none_with_json(run_cli, reference_bundle: Path, tmp_path: Path) -> None:
    verbose = run_cli("build", reference_bundle, "--out", tmp_path / "site", "-v")
    assert verbose.code == 0, verbose.err
    lines = [line for line in verbose.err.splitlines() if line.startswith("evidence-kit: build ")]
    assert lines == [f"evidence-kit: build {n}/5: {text}" for n, text in enumerate(STEPS, 1)]
    assert "\r" not in verbose.err and "\x1b" not in verbose.err
    as_json = run_cli("build", reference_bundle, "--out", tmp_path / "site", "-v", "--json")
    assert as_json.code == 0, as_json.err
    assert "evidence-kit: build " not in as_json.err
