"""Placeholders filled into a plan's shell commands, each value reaching the command as the literal text it is.

A plan's ``start`` and ``stop`` commands run through ``/bin/sh -c``. A placeholder such as
``{python}`` stands for a path that may hold a space, a quote or a ``$`` (a checkout in
``~/my projects/``): pasted as it is, the shell would split it into words or expand it.
So each placeholder is written in the quoting of the place it stands in, read the way
``/bin/sh`` reads the command: bare (``{python} -m …``) it becomes one quoted word;
inside ``"…"`` its ``\\``, ``"``, ``$`` and backquotes are escaped; inside ``'…'`` the
quote is closed around it and reopened; inside ``$(…)`` it is bare again, and inside backquotes
bare with the backslashes the shell removes there.
Whatever the plan's author wrote around a placeholder, the program receives the value.
"""

from __future__ import annotations

import shlex

__all__ = ["fill_command"]

_DOUBLE_QUOTED_SPECIAL = frozenset('\\"$`')


def _in_double_quotes(value: str) -> str:
    return "".join("\\" + ch if ch in _DOUBLE_QUOTED_SPECIAL else ch for ch in value)


def _in_backquotes(word: str) -> str:
    # The shell removes a backslash before $, ` and \ from backquoted text before it parses it as a command.
    return word.replace("\\", "\\\\").replace("`", "\\`").replace("$", "\\$")


def _quoted(value: str, stack: list[str]) -> str:
    """``value`` written so that, inside the open contexts ``stack`` (innermost last), the shell reads it back unchanged."""
    context = stack[-1]
    if context == '"':
        word = _in_double_quotes(value)
    elif context == "'":
        word = "'" + shlex.quote(value) + "'"  # close the quote, one quoted word, reopen
    else:
        word = shlex.quote(value)
    for _ in range(stack.count("`")):  # each enclosing backquote removes one level of backslashes
        word = _in_backquotes(word)
    return word


def _advance(command: str, i: int, stack: list[str]) -> int:
    """Follow the quoting at ``command[i]``: update the open contexts, return how many characters it takes."""
    context, ch = stack[-1], command[i]
    if context == "'":
        if ch == "'":
            stack.pop()
        return 1
    if ch == "\\":
        return 2  # the next character is taken literally (inside "…" too, for the ones it escapes)
    if command.startswith("$(", i):
        stack.append("$(")
        return 2
    if ch == "`" and context == "`":
        stack.pop()
    elif ch == "`":
        stack.append("`")
    elif context == '"':
        if ch == '"':
            stack.pop()
    elif ch == ")" and context == "$(":
        stack.pop()
    elif ch in "'\"":
        stack.append(ch)
    return 1


def fill_command(command: str, values: dict[str, str]) -> str:
    """``command`` with each ``{name}`` of ``values`` replaced by its value, quoted for where it stands.

    Anything else in braces (``${VAR}``, JSON) stays as written. The quoting contexts followed
    are POSIX ``sh``'s: single and double quotes, backslash escapes, ``$(…)`` and backquotes.
    """
    placeholders = {"{" + key + "}": value for key, value in values.items()}
    out: list[str] = []
    stack: list[str] = [""]  # the open contexts: "" bare, '"', "'", "$(" and "`" (bare inside)
    i = 0
    while i < len(command):
        found = next((p for p in placeholders if command.startswith(p, i)), None)
        if found is not None:
            out.append(_quoted(placeholders[found], stack))
            i += len(found)
            continue
        step = _advance(command, i, stack)
        out.append(command[i : i + step])
        i += step
    return "".join(out)
