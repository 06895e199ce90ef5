"""The journal reader streams in constant memory and turns any garbage into a located error."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evidence_kit.errors import BadInput
from evidence_kit.read import JournalReader

HEADER = {
    "type": "header",
    "schema": "evidence-kit/journal/v1",
    "trial_id": "t",
    "arm": "a",
    "phase": "before",
    "seq": 1,
    "started_at": "2026-11-01T00:00:00Z",
}


def _request(run: str, rep: int, i: int) -> dict:
    return {
        "type": "request",
        "run": run,
        "repetition": rep,
        "input_nominal": 8192,
        "concurrency": 4,
        "index": i,
        "warmup": False,
        "ok": True,
        "error": None,
        "prompt_tokens": 6066,
        "completion_tokens": 812,
        "e2e_s": 4.958,
        "ttft_s": 0.412,
        "ttft_content_s": 3.107,
        "finish_reason": "stop",
    }


def _write_journal(path: Path, runs: int, per_run: int = 100) -> None:
    with path.open("w") as handle:
        handle.write(json.dumps(HEADER) + "\n")
        for r in range(runs):
            run = f"r{r + 1}-8192-c4"
            for i in range(per_run):
                handle.write(json.dumps(_request(run, r + 1, i)) + "\n")
            handle.write(
                json.dumps(
                    {"type": "run", "run": run, "repetition": r + 1, "input_nominal": 8192, "concurrency": 4, "requests": per_run, "ok": per_run}
                )
                + "\n"
            )
        handle.write(json.dumps({"type": "footer", "ended_at": "x", "requests": runs * per_run, "timed_requests": runs * per_run}) + "\n")


def _peak_while_reading(path: Path) -> int:
    tracemalloc.start()
    try:
        count = sum(1 for _ in JournalReader(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count > 0
    return peak


def test_memory_does_not_grow_with_the_journal(tmp_path: Path) -> None:
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    _write_journal(small, runs=10)
    _write_journal(large, runs=200)  # 20x the lines
    assert large.stat().st_size > 15 * small.stat().st_size
    peak_small, peak_large = _peak_while_reading(small), _peak_while_reading(large)
    # Only the per-run bookkeeping may grow (a run id per run), never the records.
    assert peak_large < peak_small + 200 * 1024, (peak_small, peak_large)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.binary(max_size=80), min_size=1, max_size=6))
def test_any_bytes_give_a_located_error_or_records(tmp_path: Path, lines: list[bytes]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(json.dumps(HEADER).encode() + b"\n" + b"\n".join(lines))
    try:
        for _ in JournalReader(path, require_footer=False):
            pass
    except BadInput as err:
        assert err.path == str(path)
        assert err.line is not None and 1 <= err.line <= len(lines) + 1
        assert "\n" not in str(err)
