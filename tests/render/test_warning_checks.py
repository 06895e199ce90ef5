"""A check at level warning that did not pass reads as a warning wherever it is shown, never as FAILED:
the terminal report and every generated page (the collector's own lines: tests/collect)."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.read import load_decision
from evidence_kit.render.docs_folder import docs_files
from evidence_kit.text_report import render_text


def _add_check(journal: Path, check: dict) -> None:
    lines = journal.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "footer")
    journal.write_text("\n".join([*lines[:at], json.dumps({"type": "check", **check}), *lines[at:]]) + "\n")


def _shown(decision: Path) -> tuple[str, str]:
    evidence = load_decision(decision)
    analysis = analyze(evidence)
    pages = docs_files([(evidence, analysis)])
    text = "\n".join(body.decode() for name, body in sorted(pages.items()) if name.endswith(".md"))
    return render_text(analysis), text


def test_a_warning_is_shown_as_a_warning_and_a_failure_as_failed(reference_decision: Path) -> None:
    journal = reference_decision / "cache-layout" / "journals" / "02-layout-candidate-candidate.jsonl"
    _add_check(journal, {"name": "stop", "ok": False, "detail": "stop command exited with status 4", "level": "warning"})
    terminal, pages = _shown(reference_decision)
    sentence = "Warning: the stop check did not pass in the candidate arm (shown, not failing the arm)."
    assert sentence in terminal and sentence in pages
    assert "FAILED" not in terminal and "FAILED" not in pages and "stop check failed" not in terminal + pages
    # The same check at level error is a failure, and says so.
    _add_check(journal, {"name": "readmission", "ok": False, "detail": "the route does NOT list the model"})
    terminal, pages = _shown(reference_decision)
    assert "The readmission check failed in the candidate arm." in terminal and "readmission FAILED (candidate)" in pages
