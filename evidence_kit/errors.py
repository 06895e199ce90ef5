"""The one exception tree of evidence-kit.

Every problem with input a user gave us (a file, a folder, an option) is an
:class:`EvidenceError`. It carries the path and, where it makes sense, the line,
so the command line can print one line and exit 2 without a traceback.
"""

from __future__ import annotations

from pathlib import Path

from .one_line import one_line

__all__ = ["EvidenceError", "BadInput", "CheckFailed", "EXIT_OK", "EXIT_FAILED", "EXIT_BAD_INPUT"]

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

    def __str__(self) -> str:
        """``path[:line]: message`` on one line, whatever the file name or message holds."""
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return one_line(f"{where}{self.message}")


class BadInput(EvidenceError):
    """Input that cannot be read or does not follow the contract (exit 2)."""


class CheckFailed(EvidenceError):
    """A check ran and failed (exit 1): a gate, a leak scan, a verification."""

    exit_code = EXIT_FAILED
