"""The display of a long command's steps (evidence_kit.progress): which one each kind of stderr gets."""

from __future__ import annotations

import io

from evidence_kit.progress import StatusLine, StepLines, Steps, steps_for


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_status_line_rewritten_in_place_and_erased_at_the_end() -> None:
    stream = _Terminal()
    steps = steps_for("verify", total=2, stream=stream)
    assert isinstance(steps, StatusLine)
    steps.step("checking the manifest")
    steps.step("recomputing\nthe figures")  # a step's text stays on its one line
    steps.close()
    assert stream.getvalue() == (
        "\r\x1b[2Kevidence-kit: verify 1/2: checking the manifest\r\x1b[2Kevidence-kit: verify 2/2: recomputing the figures\r\x1b[2K"
    )


def test_off_a_terminal_nothing_unless_verbose_then_plain_lines() -> None:
    stream = io.StringIO()
    silent = steps_for("build", total=5, stream=stream)
    silent.step("rendering")
    assert type(silent) is Steps and stream.getvalue() == ""
    lines = steps_for("build", verbose=True, stream=stream)
    assert isinstance(lines, StepLines)
    lines.step("rendering")
    lines.close()
    assert stream.getvalue() == "evidence-kit: build: rendering\n"


def test_quiet_or_json_shows_nothing_even_on_a_terminal_and_verbose() -> None:
    stream = _Terminal()
    steps = steps_for("build", total=5, quiet=True, verbose=True, stream=stream)
    steps.step("rendering")
    steps.close()
    assert type(steps) is Steps and stream.getvalue() == ""
