"""A group of 50 turns whose last eleven failed everywhere (a context limit reached at turn 40 of
every conversation). The per-turn table holds 50 rows in turn order (10 after 9, not after 1), the turns no
request completed show a dash and no figure, and the text is the same bytes twice."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.present import turn_rows
from evidence_kit.present.format import dash
from evidence_kit.read import load_trial
from evidence_kit.text_report import render_text
from tests.collect.test_multiturn import _bundle

TIMES = ("e2e_s", "ttft_s", "ttft_content_s", "prompt_tokens", "completion_tokens", "finish_reason")


def _context_limit_at(bundle: Path, limit: int) -> Path:
    for journal in (bundle / "journals").glob("*.jsonl"):
        records = [json.loads(line) for line in journal.read_text().splitlines()]
        for r in records:
            if r["type"] == "request" and r["turn"] == limit:
                r.update(ok=False, error="http 400: maximum context length", http_status=400, **dict.fromkeys(TIMES))
            elif r["type"] == "request" and r["turn"] > limit:
                for name in TIMES:
                    r.pop(name)
                r.update(ok=False, error=f"not sent: turn {limit} of its conversation failed")
            elif r["type"] == "run":
                r["ok"] = 2 * (limit - 1)
        journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    return bundle


def test_fifty_turns_render_in_order_with_dashes_for_the_turns_never_answered(tmp_path: Path, run_cli) -> None:
    bundle = _context_limit_at(_bundle(tmp_path / "b", 50), 40)
    assert "PASS contract" in run_cli("verify", bundle).out  # the order the collector writes: it verifies
    analysis = analyze(load_trial(bundle))
    rows = turn_rows(analysis.trials[0])
    assert [row[1] for row in rows] == [str(t) for t in range(1, 51)]
    assert all(dash not in row[2:] for row in rows[:39])
    assert all(set(row[2:]) <= {dash, f"{dash} / {dash}"} for row in rows[39:]), rows[39]
    assert render_text(analysis) == render_text(analyze(load_trial(bundle)))
