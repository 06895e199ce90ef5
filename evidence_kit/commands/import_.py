"""``evidence-kit import``: other clients' result files as the raw evidence of one A/B/A trial."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import click
from pydantic import Field

from ..errors import BadInput
from ..importers import DEFAULT_RULE, import_trial
from ..model import DeclaredRule
from ..model._base import Record
from ..read import read_toml_model
from .json_result import echo_result, json_option

__all__ = ["import_"]


class RuleFile(Record):
    """A rule file: the ``[decision_rule]`` table of a plan, alone."""

    model_config = Record.model_config | {"extra": "forbid"}

    decision_rule: DeclaredRule = Field(description="the rule the imported trial is judged by (statistics 4 unless it names another)")


SLUG = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"
_FILE = click.Path(path_type=Path)  # a file, or an AIPerf artifact folder


@click.command("import")
@click.option(
    "--before",
    multiple=True,
    required=True,
    type=_FILE,
    help="A result file (or an AIPerf artifact folder) of the original configuration, measured first "
    "(repeat: one per repetition, or per level of a client that runs one level per file).",
)
@click.option(
    "--candidate", multiple=True, required=True, type=_FILE, help="A result file of the candidate configuration (repeat: one per repetition)."
)
@click.option(
    "--restored",
    multiple=True,
    required=True,
    type=_FILE,
    help="A result file of the original configuration, measured again after the candidate (repeat: one per repetition).",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="The decision folder to create (decision.toml and the trial's folder); refused when not empty.",
)
@click.option(
    "--rule",
    "rule",
    type=click.Path(path_type=Path, dir_okay=False),
    help="A TOML file whose [decision_rule] table is the trial's rule (as in a plan file). Default: the "
    "reference decision's, 10% lower pooled median end-to-end latency against both controls, judged by "
    "statistics 4 (the whole interval beyond the threshold) as any rule that names no version.",
)
@click.option("--trial-id", default="imported", show_default=True, help="The trial's id (a slug): its folder's name and its pages' name.")
@click.option("--title", default=None, help="The trial's and the decision's title (default: names the tool).")
@click.option(
    "--date",
    "date",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="The decision's date, YYYY-MM-DD (default: the earliest the files record; required when none records one, as inference-perf's do not).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="The concurrency the client ran at, for files that do not record it (AIPerf records, "
    "inference-perf reports); no file may have had more requests in flight at once. Default: the "
    "most requests any of the files had in flight at once.",
)
@json_option
def import_(
    before: tuple[Path, ...],
    candidate: tuple[Path, ...],
    restored: tuple[Path, ...],
    out: Path,
    rule: Path | None,
    trial_id: str,
    title: str | None,
    date: dt.datetime | None,
    concurrency: int | None,
    as_json: bool,
) -> None:
    """Turn result files of vllm bench serve (--save-detailed), GuideLLM (its JSON report), AIPerf
    (profile_export.jsonl) or inference-perf (per_request_lifecycle_metrics.json) into the raw evidence of one A/B/A trial: OUT
    becomes a decision folder holding the trial, which redact, analyze, build and verify read like a collected
    one. Each file's tool, format and version are detected from its content.

    Exit 0, or 2 on bad input (an unknown, too old or damaged file; nothing is written then).
    """
    if not re.fullmatch(SLUG, trial_id):
        raise BadInput(f"--trial-id {trial_id!r} is not a slug (1-128 letters, digits, '.', '_' or '-', starting with a letter or digit)")
    declared = read_toml_model(rule, RuleFile).decision_rule if rule is not None else DEFAULT_RULE
    folder = import_trial(
        before,
        candidate,
        restored,
        out,
        rule=declared,
        trial_id=trial_id,
        title=title,
        date=None if date is None else date.date().isoformat(),
        concurrency=concurrency,
    )
    if as_json:
        echo_result("import", decision=str(out), trial=str(folder), trial_id=trial_id)
    else:
        click.echo(str(folder))
