"""A placeholder filled into a plan's shell command reaches the program as the literal value, wherever the plan's
author put it: bare, in double or single quotes, inside `$(…)` or backquotes. Run by the real /bin/sh."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_kit.collect.shell import fill_command

# Where a plan's author may write a placeholder, and what the shell then passes to printf as the argument.
TEMPLATES = {
    "bare": ("printf '%s\\n' {python}", "{}"),
    "double quotes": ("printf '%s\\n' \"{python}\"", "{}"),
    "single quotes": ("printf '%s\\n' '{python}'", "{}"),
    "inside a word": ("printf '%s\\n' --python={python}/x", "--python={}/x"),
    "command substitution": ("printf '%s\\n' \"$(printf '%s' {python})\"", "{}"),
    "backquotes in double quotes": ("printf '%s\\n' \"`printf '%s' {python}`\"", "{}"),
    "after an escaped quote": ('printf \'%s\\n\' "a\\"{python}"', 'a"{}'),
    "quoted inside backquotes": ("printf '%s\\n' \"`printf '%s' \"{python}\"`\"", "{}"),
}

# Anything a path may hold but NUL (no argument can) and line ends (which $(…) strips, shell semantics).
PATHS = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00\n\r"), min_size=1, max_size=40)


def _printed(command: str) -> str:
    done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, timeout=10, check=True)
    return done.stdout.decode("utf-8", errors="surrogateescape").removesuffix("\n")


@pytest.mark.parametrize("where", list(TEMPLATES))
def test_a_checkout_path_with_spaces_quotes_and_dollars_reaches_the_command_unchanged(where: str) -> None:
    template, expected = TEMPLATES[where]
    value = '/home/me/my projects/evidence kit ü/it\'s $HOME `x` "q" \\ \t/.venv/bin/python'
    assert _printed(fill_command(template, {"python": value})) == expected.format(value)


@settings(max_examples=60, deadline=None)
@given(value=PATHS, where=st.sampled_from(list(TEMPLATES)))
def test_any_value_in_any_quoting_context_is_passed_literally(value: str, where: str) -> None:
    template, expected = TEMPLATES[where]
    assert _printed(fill_command(template, {"python": value})) == expected.format(value)


def test_other_braces_and_unknown_placeholders_stay_as_written() -> None:
    command = 'echo ${HOME} {"a": 1} {unknown} {port}'
    assert fill_command(command, {"port": "8000", "python": "/p q"}) == 'echo ${HOME} {"a": 1} {unknown} 8000'


def test_a_safe_value_is_written_bare() -> None:
    # Every plan that worked before reads the same: a value needing no quotes is not quoted.
    assert fill_command("{python} -m evidence_kit sim --port {port}", {"python": "/usr/bin/python3", "port": "8000"}) == (
        "/usr/bin/python3 -m evidence_kit sim --port 8000"
    )
