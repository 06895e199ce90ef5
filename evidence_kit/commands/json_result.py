"""``--json`` for the commands that write something (import, redact, build, scan): what they did, as one
JSON object on stdout, instead of their prose.

Each object carries ``schema`` (``evidence-kit/<command>-result/v1``), sorted keys and plain values (paths as
text), so a script reads it without parsing sentences. Findings go into the object, not stderr; the exit
code is the command's own.
"""

from __future__ import annotations

import json
from typing import Any

import click

__all__ = ["json_option", "echo_result"]

json_option = click.option("--json", "as_json", is_flag=True, help="Print what was done as one JSON object on stdout (docs/cli.md), not prose.")


def echo_result(command: str, **fields: Any) -> None:
    """Print ``fields`` as the command's JSON result: ``{"schema": "evidence-kit/<command>-result/v1", ...}``."""
    click.echo(json.dumps({"schema": f"evidence-kit/{command}-result/v1", **fields}, sort_keys=True, default=str))
