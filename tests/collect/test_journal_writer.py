"""Journal writing: validated, append-only, and cut back to the last complete run on resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.collect.journal_writer import JournalWriter, encode_record, open_for_resume
from evidence_kit.errors import BadInput
from evidence_kit.read import JournalReader

HEADER = {
    "type": "header",
    "schema": "evidence-kit/journal/v1",
    "trial_id": "t",
    "arm": "a",
    "phase": "before",
    "seq": 1,
    "started_at": "2026-01-01T00:00:00Z",
    "private": {"endpoint": "http://fabricated.invalid"},
}


def request(run: str, index: int, *, warmup: bool = False) -> dict:
    return {
        "type": "request",
        "run": run,
        "repetition": 0 if warmup else 1,
        "input_nominal": 256,
        "concurrency": 2,
        "index": index,
        "warmup": warmup,
        "ok": True,
        "error": None,
        "prompt_tokens": 250,
        "completion_tokens": 10,
        "e2e_s": 0.5,
        "ttft_s": 0.1,
        "ttft_content_s": 0.2,
        "finish_reason": "stop",
    }


def run_record(run: str, n: int = 2) -> dict:
    return {
        "type": "run",
        "run": run,
        "repetition": 1,
        "input_nominal": 256,
        "concurrency": 2,
        "requests": n,
        "ok": n,
        "reconciled": True,
        "counters": {"requests": [0, n]},
    }


def write_journal(path: Path, runs: int) -> JournalWriter:
    writer = JournalWriter(path)
    writer.add(HEADER)
    writer.add(request("warmup", 0, warmup=True))
    writer.commit()
    for r in range(runs):
        for i in range(2):
            writer.add(request(f"r1-256-c{r + 1}", i))
        writer.add(run_record(f"r1-256-c{r + 1}"))
        writer.commit()
    return writer


def test_type_comes_first_and_lines_are_compact() -> None:
    line = encode_record({"ok": True, "type": "check", "name": "x"})
    assert line == b'{"type":"check","ok":true,"name":"x"}\n'


def test_a_bad_record_never_reaches_the_file(tmp_path: Path) -> None:
    writer = JournalWriter(tmp_path / "j.jsonl")
    with pytest.raises(BadInput):
        writer.add({**request("r", 0), "e2e_s": None})  # ok without e2e_s breaks the contract
    writer.commit()
    assert not (tmp_path / "j.jsonl").exists()


def test_nothing_reaches_the_file_before_commit(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    writer = write_journal(path, 1)
    size = path.stat().st_size
    writer.add(request("r1-256-c9", 0))
    assert path.stat().st_size == size
    writer.discard()
    writer.footer("2026-01-01T00:01:00Z")
    writer.commit()
    reader = JournalReader(path)
    list(reader)
    assert reader.footer is not None and reader.footer.requests == 3 and reader.footer.timed_requests == 2


def test_resume_cuts_a_torn_line_and_an_unclosed_run(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    write_journal(path, 2)
    complete = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(encode_record(request("r1-256-c3", 0)))  # a run that never closed
        handle.write(encode_record(request("r1-256-c3", 1))[:40])  # torn mid-line
    point = open_for_resume(path)
    assert path.read_bytes() == complete
    assert point.done_runs == {"r1-256-c1", "r1-256-c2"} and not point.finished
    assert (point.requests, point.timed) == (5, 4) and point.header is not None


def test_resume_without_a_complete_run_starts_the_arm_again(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    write_journal(path, 0)
    point = open_for_resume(path)
    assert not path.exists() and point.header is None and not point.done_runs


def test_resume_refuses_damage_before_the_last_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    write_journal(path, 1)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = b'{"type": "request", "run": 3}\n'
    path.write_bytes(b"".join(lines))
    with pytest.raises(BadInput) as caught:
        open_for_resume(path)
    assert caught.value.line == 2
