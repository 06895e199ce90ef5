"""``evidence-kit redact`` and ``evidence-kit scan`` through the real command line."""

from __future__ import annotations

import json

from . import corpus
from .conftest import KEY


def test_redact_then_scan_clean(raw_trial, tmp_path, run_cli):
    key = tmp_path / "redaction.key"
    key.write_bytes(KEY)
    result = run_cli("redact", raw_trial, "--out", tmp_path / "bundle", "--key", key, "--map", tmp_path / "map.json")
    assert result.code == 0, result.err
    assert "known-value scan: clean" in result.out and "key key-" in result.out and "5 file(s) withheld" in result.out
    scanned = run_cli("scan", tmp_path / "bundle", "--raw", raw_trial, "--map", tmp_path / "map.json")
    assert scanned.code == 0 and "clean" in scanned.out


def test_scan_of_raw_evidence_exits_1_without_values(raw_trial, run_cli):
    result = run_cli("scan", raw_trial, "--raw", raw_trial)
    assert result.code == 1
    assert "private: " in result.err and "finding(s)" in result.err
    for canary in corpus.CANARIES:
        assert canary.lower() not in result.err.lower()


def test_redact_leak_exits_1(tmp_path, run_cli):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    journal = raw / "journals" / "01-original-before.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    lines[1] = json.dumps(json.loads(lines[1]) | {"completion_tokens": int(corpus.SERIAL)}) + "\n"
    journal.write_text("".join(lines))
    policy = tmp_path / "policy.toml"
    policy.write_text(f'[private]\nserial = ["{corpus.SERIAL}"]\n')
    result = run_cli("redact", raw, "--out", tmp_path / "out", "--policy", policy)
    assert result.code == 1
    assert "journals/01-original-before.jsonl:2: serial" in result.err and "NOT publishable" in result.err
    assert corpus.SERIAL not in result.err + result.out


def test_bad_input_is_one_line_exit_2(tmp_path, run_cli):
    result = run_cli("redact", tmp_path / "missing", "--out", tmp_path / "out")
    assert result.code == 2 and result.err.count("\n") == 1 and "Traceback" not in result.err
    short = tmp_path / "short.key"
    short.write_bytes(b"abc")
    raw = corpus.make_raw_trial(tmp_path / "raw")
    result = run_cli("redact", raw, "--out", tmp_path / "out", "--key", short)
    assert result.code == 2 and "at least 16 bytes" in result.err
    assert run_cli("scan", tmp_path / "missing").code == 2
