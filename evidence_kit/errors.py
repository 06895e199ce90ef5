"""The one exception tree of evidence-kit.

Every problem with input a user gave us (a file, a folder, an option) is an
:class:`EvidenceError`. It carries the path and, where it makes sense, the line,
so the command line can print one line and exit 2 without a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .one_line import one_line

__all__ = ["EvidenceError", "BadInput", "ManyProblems", "CheckFailed", "EXIT_OK", "EXIT_FAILED", "EXIT_BAD_INPUT"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


class EvidenceError(Exception):
    """Base of every error evidence-kit raises on purpose."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line

    def located(self, path: str | Path, line: int | None = None) -> EvidenceError:
        """Return this error with a location attached (only where it has none yet)."""
        if self.path is None:
            self.path = str(path)
        if self.line is None:
            self.line = line
        return self

    def each(self) -> list[EvidenceError]:
        """The problems this error reports, each located: itself, or every one of a :class:`ManyProblems`."""
        return [self]

    def __str__(self) -> str:
        """``path[:line]: message`` on one line, whatever the file name or message holds."""
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return one_line(f"{where}{self.message}")


class BadInput(EvidenceError):
    """Input that cannot be read or does not follow the contract (exit 2)."""


class ManyProblems(BadInput):
    """Every problem found in one input at once (each mistake of a plan, at its line), one line each.

    The command line prints :meth:`each` on a line of its own; ``str()`` joins them with ``; ``
    for a place that shows one line.
    """

    def __init__(self, problems: Sequence[EvidenceError]):
        first = problems[0]
        super().__init__(first.message, first.path, first.line)
        self.problems = list(problems)

    @classmethod
    def of(cls, problems: Sequence[BadInput]) -> BadInput:
        """One error for ``problems``: the problem itself when there is one."""
        return problems[0] if len(problems) == 1 else cls(problems)

    def located(self, path: str | Path, line: int | None = None) -> EvidenceError:
        for problem in self.problems:
            problem.located(path, line)
        return super().located(path, line)

    def each(self) -> list[EvidenceError]:
        return list(self.problems)

    def __str__(self) -> str:
        return "; ".join(str(problem) for problem in self.problems)


class CheckFailed(EvidenceError):
    """A check ran and failed (exit 1): a gate, a leak scan, a verification."""

    exit_code = EXIT_FAILED
