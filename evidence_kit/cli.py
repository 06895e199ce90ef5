"""The ``evidence-kit`` command line: thin, lazy, and the one place errors become exit codes.

Each command lives in its own module and is imported only when it runs, so
``evidence-kit collect`` does not pay for the site builder's imports.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import cast

import click

from .commands.verbosity import add_verbosity_options
from .errors import EXIT_BAD_INPUT, EXIT_OK, EvidenceError
from .one_line import one_line
from .version import __version__

__all__ = ["main", "run", "cli", "COMMANDS", "import_ahead"]

# name -> "module:attribute"; one line per command, in the order `--help` lists them.
COMMANDS: dict[str, str] = {
    "demo": "evidence_kit.commands.demo:demo",
    "collect": "evidence_kit.commands.collect:collect",
    "import": "evidence_kit.commands.import_:import_",
    "redact": "evidence_kit.commands.redact:redact",
    "scan": "evidence_kit.commands.scan:scan",
    "analyze": "evidence_kit.commands.analyze:analyze",
    "power": "evidence_kit.commands.power:power",
    "export": "evidence_kit.commands.export:export",
    "build": "evidence_kit.commands.build:build",
    "serve": "evidence_kit.commands.serve:serve",
    "verify": "evidence_kit.commands.verify:verify",
    "keygen": "evidence_kit.commands.keygen:keygen",
    "schema": "evidence_kit.commands.schema:schema",
    "sim": "evidence_kit.commands.sim:sim",
}


# Commands whose numpy work multiplies no matrices and that start no engine: the worker threads OpenBLAS
# starts when numpy loads (one per core) only spin there, 0.03-0.05 s of CPU on every run (docs/benchmarks.md).
# A value the user set is kept.
ONE_BLAS_THREAD = frozenset({"analyze", "verify"})


class LazyGroup(click.Group):
    """A click group that imports a command's module only when that command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        if cmd_name in ONE_BLAS_THREAD:
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before the command's imports load numpy
        # Every COMMANDS entry names a click command (tests/test_cli_docs.py loads each one).
        return add_verbosity_options(cast(click.Command, getattr(importlib.import_module(module_name), attribute)))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="evidence-kit")
def cli() -> None:
    """Turn LLM-serving A/B/A experiments into decisions anyone can check.

    Shell completion: eval "$(_EVIDENCE_KIT_COMPLETE=bash_source evidence-kit)" (zsh_source, fish_source).
    """


add_verbosity_options(cli)


def _usage_line(err: click.ClickException) -> str:
    """A usage error (a bad option, a missing argument) on one line, naming the command and its help."""
    ctx = getattr(err, "ctx", None)
    text = err.format_message().rstrip(".")
    if ctx is None:
        return one_line(text)
    name = ctx.command_path.removeprefix("evidence-kit").strip()
    return one_line(f"{name + ': ' if name else ''}{text} (see {ctx.command_path} --help)")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code.

    Every :class:`EvidenceError` becomes one line on stderr and its exit code; a
    command may return an ``int`` to choose its own (``verify`` returns 1 on a
    failed check).
    """
    try:
        result = cli.main(args=argv, prog_name="evidence-kit", standalone_mode=False)
    except EvidenceError as err:
        for problem in err.each():  # every problem found at once, one line each
            click.echo(f"evidence-kit: {problem}", err=True)
        return err.exit_code
    except click.exceptions.Abort:
        click.echo("evidence-kit: interrupted", err=True)
        return 130
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.exceptions.NoArgsIsHelpError as err:
        if err.ctx is not None and err.ctx.parent is None:  # `evidence-kit` alone: its help, on stdout, exit 0
            click.echo(err.ctx.get_help())
            return EXIT_OK
        err.show()  # a command without its arguments: the help, as asked for
        return EXIT_BAD_INPUT
    except click.ClickException as err:
        click.echo(f"evidence-kit: {_usage_line(err)}", err=True)  # one line, as every bad input gets
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        click.echo("evidence-kit: interrupted", err=True)
        return 130
    return result if isinstance(result, int) else 0


def import_ahead(argv: list[str]) -> None:
    """Import the module of the command ``argv`` names (its first word that is not an option) with the cyclic
    garbage collector off, then freeze what the imports made and turn the collector back on.

    Modules, classes and functions live as long as the process: collecting while they are made finds nothing,
    and every later full collection scans them all again (with pydantic's models and numpy, 0.1 s of the
    0.5 s a decision folder's ``verify`` takes; docs/benchmarks.md). Only the console script does this: the
    process is the command's, where a library caller's objects are its own.
    """
    name = next((word for word in argv if not word.startswith("-")), None)
    if name not in COMMANDS:
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        cli.get_command(click.Context(cli), name)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def run() -> None:
    """Console-script entry point."""
    import_ahead(sys.argv[1:])
    sys.exit(main())


if __name__ == "__main__":
    run()
