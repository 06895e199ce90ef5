"""Import other benchmark clients' result files as the raw evidence of one A/B/A trial.

``import_trial`` reads each file, detects its tool and format from its content (never from its name or
an option), maps every request it records onto the journal contract (what the tool does not record
stays absent) and writes a decision folder holding one trial, which ``redact``, ``analyze``, ``build``
and ``verify`` read like a collected one. ``docs/import.md`` lists, per tool, what is mapped and what
is absent.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..model import DecisionRule
from . import aiperf, guidellm, inference_perf, vllm_bench
from .levels import combine_levels
from .source import ImportedFile, SourceFile, parse_json, read_source
from .trial import DEFAULT_RULE, TOOL_NAMES, assemble
from .wrong_files import wrong_file

__all__ = ["import_trial", "read_file", "DEFAULT_RULE", "TOOL_NAMES"]

_LOG = logging.getLogger(__name__)

# (detect, read) per format, tried in order on a file's parsed JSON.
_JSON_FORMATS: list[tuple[Callable[[Any], bool], Callable[[SourceFile, Any], ImportedFile]]] = [
    (vllm_bench.detect, vllm_bench.read),
    (guidellm.detect, guidellm.read),
    (inference_perf.detect, inference_perf.read),
]
KNOWN = (
    "vllm bench serve (--save-detailed), GuideLLM benchmarks.json, AIPerf profile_export.jsonl or its artifact folder, "
    "inference-perf per_request_lifecycle_metrics.json"
)


def read_file(path: Path) -> ImportedFile:
    """One result file, its format detected from its content; a located :class:`BadInput` for a file of
    no known format, too old, damaged, or without the per-request timings an import needs."""
    if path.is_dir():  # AIPerf's artifact folder: its records with their summary and server metrics
        return aiperf.read_folder(path)
    source = read_source(path)
    first = source.text.lstrip().split("\n", 1)[0]
    if first.startswith("{") and _one_object(first) and ("\n" in source.text.strip() or aiperf.detect(json.loads(first))):
        # JSON Lines, one object a line: AIPerf's records; an evidence-kit journal needs no import.
        if aiperf.detect(json.loads(first)):
            lines = [(n, text) for n, text in enumerate(source.text.splitlines(), start=1) if text.strip()]
            return aiperf.read(source, lines)
        native = '"schema":"evidence-kit/journal/v1"' in first.replace(" ", "")
        raise BadInput(
            "an evidence-kit journal, not another client's result file: it needs no import"
            if native
            else f"a JSON Lines file of no known client ({KNOWN})",
            path,
            1,
        )
    doc = parse_json(source)
    for detect, read in _JSON_FORMATS:
        if detect(doc):
            return read(source, doc)
    wrong = wrong_file(doc)
    if wrong is not None:
        raise BadInput(f"{wrong.name}, which holds no per-request timings: {wrong.instead}", path, 1)
    raise BadInput(f"not a result file of a known client ({KNOWN})", path, 1)


def _logged(imported: ImportedFile, phase: str) -> ImportedFile:
    levels = ", ".join(f"concurrency {g.concurrency}: {len(g.requests)} request(s)" for g in imported.groups)
    _LOG.info("%s %s: %s %s, %s", phase, imported.path, TOOL_NAMES[imported.tool], imported.version or "(no version recorded)", levels)
    return imported


def _one_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def import_trial(
    before: Sequence[Path],
    candidate: Sequence[Path],
    restored: Sequence[Path],
    out: Path,
    *,
    rule: DecisionRule | None = None,
    trial_id: str = "imported",
    title: str | None = None,
    date: str | None = None,
    concurrency: int | None = None,
) -> Path:
    """Read every file and write ``out``: a decision folder (``decision.toml``) holding the trial
    ``trial_id``. Returns the trial's folder. Nothing is written when any file is refused."""
    for phase, files in (("before", before), ("candidate", candidate), ("restored", restored)):
        if not files:
            raise BadInput(f"no {phase} file: an A/B/A trial needs at least one file per phase")
    given = {"before": before, "candidate": candidate, "restored": restored}
    phases = {phase: combine_levels([_logged(read_file(p), phase) for p in paths], phase) for phase, paths in given.items()}
    first = phases["before"][0]
    tool = TOOL_NAMES[first.tool]
    dates = sorted(f.started_at[:10] for files in phases.values() for f in files if f.started_at)
    if date is None:
        if not dates:
            raise BadInput(f"no {tool} file records a date: pass --date YYYY-MM-DD for the decision")
        date = dates[0]
    title = title or f"Imported {tool} results: before, candidate, restored"
    return assemble(
        phases,
        out,
        rule=rule or DEFAULT_RULE,
        trial_id=trial_id,
        title=title,
        decision_id=f"{date}-{trial_id}",
        date=date,
        workload=first_workload(phases),
        concurrency=concurrency,
    )


def first_workload(phases: dict[str, list[ImportedFile]]) -> dict[str, Any]:
    """What the files record of the workload beyond its groups: the before arm's warmup requests (AIPerf
    marks them). Temperature and the output cap are recorded by none of them as a setting: absent."""
    warmup = sum(r.warmup for f in phases["before"] for g in f.groups for r in g.requests)
    return {"warmup_requests": warmup} if warmup else {}
