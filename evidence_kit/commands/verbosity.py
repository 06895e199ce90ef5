"""The options every command takes for how much it logs: ``-v``/``--verbose``, ``-q``/``--quiet``, ``--log-level``.

They set the level of the ``evidence_kit`` logger, whose lines go to stderr as plain text, one line each,
never wrapped (a log read from a file or a CI console keeps its lines whole): ``evidence-kit: LEVEL:
message``. The default is ``warning``; each ``-v`` lowers it one step (``info``, then ``debug``), ``-q``
raises it to ``error``, and ``--log-level`` names it outright (it wins over both). They may stand before
the command (``evidence-kit -v build …``) or after it (``evidence-kit build -v …``).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from ..progress import Steps, steps_for

__all__ = ["LEVELS", "add_verbosity_options", "configure_logging", "command_steps", "LOGGER"]

LOGGER = "evidence_kit"
LEVELS = ("debug", "info", "warning", "error")


class _OneLine(logging.Formatter):
    """``evidence-kit: info: message``, a multi-line message joined onto one line."""

    def format(self, record: logging.LogRecord) -> str:
        text = " ".join(record.getMessage().split("\n"))
        return f"evidence-kit: {record.levelname.lower()}: {text}"


class _Stderr(logging.Handler):
    """Writes to the ``sys.stderr`` of the moment each record is logged (a redirected or captured one)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 (logging must never fail the command)
            self.handleError(record)


def configure_logging(level: str) -> None:
    """Send the ``evidence_kit`` logger's records at ``level`` and above to stderr, one plain line each."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        handler = _Stderr()
        handler.setFormatter(_OneLine())
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(level.upper())


def command_steps(command: str, total: int | None = None, *, as_json: bool = False) -> Steps:
    """The display of ``command``'s progress (:mod:`evidence_kit.progress`) the options ask for: a status line on a
    terminal, plain lines off it with ``-v`` (or ``--log-level info``/``debug``), none with ``-q`` (or
    ``--log-level error``) or ``--json``."""
    level = logging.getLogger(LOGGER).getEffectiveLevel()
    return steps_for(command, total=total, quiet=as_json or level >= logging.ERROR, verbose=level <= logging.INFO)


def _state(ctx: click.Context) -> dict[str, Any]:
    root = ctx.find_root()
    if not isinstance(root.meta.get(LOGGER), dict):
        root.meta[LOGGER] = {"verbose": 0, "quiet": False, "level": None}
    state: dict[str, Any] = root.meta[LOGGER]
    return state


def _apply(ctx: click.Context) -> None:
    state = _state(ctx)
    level = state["level"] or ("error" if state["quiet"] else LEVELS[max(0, 2 - state["verbose"])])
    configure_logging(level)


def _verbose(ctx: click.Context, _param: click.Parameter, value: int) -> int:
    _state(ctx)["verbose"] += value or 0
    _apply(ctx)
    return value


def _quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    _state(ctx)["quiet"] |= bool(value)
    _apply(ctx)
    return value


def _level(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        _state(ctx)["level"] = value
    _apply(ctx)
    return value


def _options(quiet: bool = True) -> list[click.Option]:
    made = [
        click.Option(
            ["-v", "--verbose"], count=True, expose_value=False, is_eager=True, callback=_verbose, help="Log more: -v info, -vv debug (stderr)."
        ),
        click.Option(
            ["--log-level"],
            type=click.Choice(LEVELS, case_sensitive=False),
            expose_value=False,
            is_eager=True,
            callback=_level,
            help="Log at this level and above (stderr, one plain line each); wins over -v and -q. Default: warning.",
        ),
    ]
    if quiet:
        made.insert(1, click.Option(["-q", "--quiet"], is_flag=True, expose_value=False, is_eager=True, callback=_quiet, help="Log errors only."))
    return made


def add_verbosity_options(command: click.Command) -> click.Command:
    """Give ``command`` (a command, or the group) the options it does not declare itself (``collect`` has its own ``--quiet``, which
    also quiets its log); returns it."""
    if getattr(command, "_verbosity", False):
        return command
    have = {flag for p in command.params for flag in p.opts}
    for option in _options(quiet="--quiet" not in have):
        if not set(option.opts) & have:
            command.params.append(option)
    command._verbosity = True  # type: ignore[attr-defined]
    return command
