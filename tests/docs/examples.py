"""A page's examples, read and run: its files (code blocks with a ``title``) are written into an empty folder
and its console blocks (``$ command`` then the output shown; ``$ command  # exits 1`` for a command the
page shows failing) are run there in order, each output compared
with what the page shows.

What the page shows is the command's real output (stdout and stderr as one stream), with two allowances
for what must vary from run to run: a line that is only ``…`` stands for any number of lines, and ``…``
inside a line for any text within it (a measured time, a random key). Paths are shown as the reader's
(``/home/you/work`` for the folder the page works in, ``/home/you/evidence-kit`` for the checkout), and
any 64-digit hex value (a key id, a digest) compares equal to any other."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import REPO

WORK = "/home/you/work"  # the folder a page works in, as its examples show it
CHECKOUT = "/home/you/evidence-kit"  # the checkout, as the examples show it
BIN = Path(sys.executable).parent  # the venv's scripts: evidence-kit, mkdocs
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.S | re.M)
TITLE = re.compile(r'title="([^"]+)"')
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


@dataclass
class Step:
    """One thing a page does: write a file, or run a command and show its output."""

    command: str = ""
    shown: str = ""
    code: int = 0  # the exit status the page says the command ends with
    path: str = ""
    text: str = ""


@dataclass
class Ran:
    command: str
    code: int
    expected_code: int
    output: str
    shown: str = field(repr=False)


def steps(page: str) -> list[Step]:
    """The page's files and commands, in the page's order."""
    found: list[Step] = []
    for match in FENCE.finditer(page):
        lang, info, body = match.groups()
        title = TITLE.search(info)
        if title:
            found.append(Step(path=title.group(1), text=body))
        elif lang == "console":
            found += _commands(body)
    return found


def _commands(body: str) -> list[Step]:
    found: list[Step] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            command, _, said = line[2:].partition("  # exits ")
            found.append(Step(command=command.rstrip(), code=int(said) if said else 0))
        elif found:
            found[-1].shown += line + "\n"
    return found


def _argv(command: str) -> list[str]:
    argv = shlex.split(command)
    if (BIN / argv[0]).exists():
        argv[0] = str(BIN / argv[0])
    return argv


def _as_shown(output: str, work: Path) -> str:
    """The output with this machine's paths written as the reader's, and colour and trailing spaces gone."""
    venv = ((str(BIN), f"{CHECKOUT}/.venv/bin"),)  # wherever the venv is, the reader's is the checkout's
    pairs = (*venv, (str(work), WORK), (str(work.resolve()), WORK), (str(REPO), CHECKOUT))

    def reader_word(quoted: re.Match[str]) -> str:
        # A word the command quoted for the shell because this checkout's path holds a space or a non-ASCII
        # letter: the reader's path needs no quotes, and the page shows none.
        word = quoted[1]
        if not any(real in word for real, _ in pairs):
            return quoted[0]
        for real, shown in pairs:
            word = word.replace(real, shown)
        return shlex.quote(word)

    output = re.sub(r"'([^']*)'", reader_word, output)
    for real, shown in pairs:
        output = output.replace(real, shown)
    output = re.sub(r"\x1b\[[0-9;]*m", "", output)
    return "\n".join(line.rstrip() for line in output.splitlines()) + "\n"


def matches(shown: str, output: str) -> bool:
    """Whether ``output`` is what ``shown`` shows, ``…`` standing for what varies."""
    pattern = []
    for line in HEX64.sub("0" * 64, shown).rstrip("\n").splitlines():
        if line.strip() == "…":
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append(".*?".join(re.escape(part) for part in line.rstrip().split("…")) + r"\n")
    return re.fullmatch("".join(pattern), HEX64.sub("0" * 64, output)) is not None


def run_page(page: Path, work: Path, timeout: float = 1200) -> list[Ran]:
    """Run every step of ``page`` in ``work``; the commands' outputs as the page would show them."""
    # NO_MKDOCS_2_WARNING: mkdocs-material prints an advertisement of its successor on every build; not ours.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1", "COLUMNS": "200", "TERM": "dumb", "NO_MKDOCS_2_WARNING": "1"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    ran: list[Ran] = []
    for step in steps(page.read_text()):
        if step.path:
            target = work / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.text)
            continue
        done = subprocess.run(_argv(step.command), cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        ran.append(Ran(step.command, done.returncode, step.code, _as_shown(done.stdout, work), step.shown))
    return ran
