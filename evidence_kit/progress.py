"""Progress of a long command, step by step, on stderr: one line rewritten in place on a terminal, plain lines
off it, or nothing.

A library function that takes seconds (``build_site``, a verification) takes a :class:`Steps` and calls
:meth:`Steps.step` as it enters each step; it never decides how, or whether, that is shown. The command
line picks the display with :func:`steps_for`: on a terminal one status line (``evidence-kit: build 2/5:
rendering pages and charts``) rewritten as the steps go and erased when the command ends, so its result
is what stays on screen; off a terminal (a CI log, a file) nothing unless asked for with ``-v``, then one
plain line per step, never rewritten, never wrapped; with ``--json`` or ``-q`` nothing at all (stdout is
a document, or quiet was asked for). Stdout is never written to.
"""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["Steps", "StatusLine", "StepLines", "steps_for"]


class Steps:
    """Silent: what a library call reports its steps to when nobody is watching (library use, tests)."""

    def step(self, text: str) -> None:
        """The call enters its next step, ``text`` (``rendering pages and charts``)."""

    def close(self) -> None:
        """The call is over (done or failed): release the display."""


class _Shown(Steps):
    """Numbers the steps (``2/5``) when their count is known, and names the command."""

    def __init__(self, command: str, total: int | None, stream: TextIO | None) -> None:
        self.command, self.total, self.stream, self.done = command, total, stream, 0

    def _out(self) -> TextIO:
        return self.stream or sys.stderr

    def _text(self, text: str) -> str:
        self.done += 1
        count = f" {self.done}/{self.total}" if self.total else ""
        return f"evidence-kit: {self.command}{count}: {' '.join(text.split())}"


class StatusLine(_Shown):
    """On a terminal: one line, rewritten in place at each step and erased at the end."""

    def step(self, text: str) -> None:
        self._out().write("\r\x1b[2K" + self._text(text))
        self._out().flush()

    def close(self) -> None:
        if self.done:
            self._out().write("\r\x1b[2K")
            self._out().flush()
            self.done = 0


class StepLines(_Shown):
    """Off a terminal: one plain line per step (a log keeps each whole)."""

    def step(self, text: str) -> None:
        self._out().write(self._text(text) + "\n")
        self._out().flush()


def steps_for(command: str, *, total: int | None = None, quiet: bool = False, verbose: bool = False, stream: TextIO | None = None) -> Steps:
    """The display of ``command``'s steps on ``stream`` (stderr): a status line on a terminal, plain lines off
    it only when ``verbose``, nothing when ``quiet`` (``-q``, ``--json``)."""
    out = stream or sys.stderr
    if quiet:
        return Steps()
    if out.isatty():
        return StatusLine(command, total, stream)
    return StepLines(command, total, stream) if verbose else Steps()
