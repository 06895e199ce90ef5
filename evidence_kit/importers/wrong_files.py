"""Files the peer clients write beside the one an import reads: each is named, with the file to pass.

A client writes several files per run (AIPerf: records, a summary, server metrics; inference-perf: a
per-request report and stage summaries). A user who passes the wrong one is told which file it is and
which one of the same run to pass instead, never just "not a result file of a known client". Each
entry is one object with its detection (from the content, never the name) and its words; the tests run
each against the tool's real file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["WrongFile", "WRONG_FILES", "wrong_file"]


@dataclass(frozen=True)
class WrongFile:
    """A file a client writes that holds no per-request timings, and the file of the same run to pass."""

    name: str  # what the client calls it
    detect: Callable[[Any], bool]
    instead: str  # what to pass instead, and how the client writes it


def _obj(doc: Any) -> dict[str, Any]:
    return doc if isinstance(doc, dict) else {}


WRONG_FILES: tuple[WrongFile, ...] = (
    WrongFile(
        name="AIPerf's summary (profile_export_aiperf.json)",
        detect=lambda doc: "aiperf_version" in _obj(doc) and "input_config" in _obj(doc) and "metrics_phase" not in _obj(doc),
        instead="pass profile_export.jsonl from the same artifact folder (aiperf profile --export-level records), or the folder itself",
    ),
    WrongFile(
        name="AIPerf's server metrics (server_metrics_export.json)",
        detect=lambda doc: isinstance(_obj(doc).get("metrics"), dict) and "metrics_phase" in _obj(doc),
        instead="pass the artifact folder that holds it and profile_export.jsonl: the server metrics are read beside the records",
    ),
    WrongFile(
        name="inference-perf's stage summary (stage_N_lifecycle_metrics.json)",
        detect=lambda doc: {"load_summary", "successes", "failures"} <= set(_obj(doc)),
        instead="pass per_request_lifecycle_metrics.json (report.request_lifecycle.per_request: true in its config)",
    ),
)


def wrong_file(doc: Any) -> WrongFile | None:
    """The known wrong file ``doc`` is, or None."""
    return next((w for w in WRONG_FILES if w.detect(doc)), None)
