"""Bad input (exit 2, nothing written) and leaks (exit 1, output marked not publishable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.errors import BadInput
from evidence_kit.redact import MARKER_NAME, Policy, redact_bundle

from . import corpus
from .conftest import KEY


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_refuses_a_non_empty_out_unless_replace(raw_trial, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old\n")
    with pytest.raises(BadInput, match="not empty"):
        redact_bundle(raw_trial, out)
    assert (out / "old.txt").read_text() == "old\n"
    redact_bundle(raw_trial, out, replace=True)
    assert not (out / "old.txt").exists() and (out / "manifest.json").is_file()
    assert _leftovers(tmp_path) == []


def test_refuses_out_inside_raw(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    with pytest.raises(BadInput, match="RAW is never modified"):
        redact_bundle(raw, raw / "bundle")
    assert not (raw / "bundle").exists()


def test_binary_file_refused_unless_dropped(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    (raw / "logs" / "engine.log.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(32))
    with pytest.raises(BadInput, match="binary or compressed") as err:
        redact_bundle(raw, tmp_path / "out")
    assert err.value.path is not None and err.value.path.endswith("engine.log.gz")
    assert not (tmp_path / "out").exists() and _leftovers(tmp_path) == []
    result = redact_bundle(raw, tmp_path / "out", policy=Policy(drop=["logs/*.gz"]))
    assert result.publishable and result.dropped == ["logs/engine.log.gz"]
    assert not (tmp_path / "out" / "logs" / "engine.log.gz").exists()
    assert json.loads((tmp_path / "out" / "receipt.json").read_text())["dropped"] == ["logs/engine.log.gz"]


def test_malformed_jsonl_names_file_and_line_and_writes_nothing(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    journal = raw / "journals" / "02-candidate-candidate.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    lines[4] = '{"type": "request", "run": \n'
    journal.write_text("".join(lines))
    with pytest.raises(BadInput) as err:
        redact_bundle(raw, tmp_path / "out")
    assert (err.value.path or "").endswith("02-candidate-candidate.jsonl") and err.value.line == 5
    assert "not valid JSON" in err.value.message
    assert not (tmp_path / "out").exists() and _leftovers(tmp_path) == []


def test_bad_policy_names_file_and_line_never_the_value(raw_trial, tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text('schema = "evidence-kit/redaction-policy/v1"\n\n[private]\nplanet = ["Xylophone-Secret"]\n')
    with pytest.raises(BadInput) as err:
        redact_bundle(raw_trial, tmp_path / "out", policy=policy)
    assert err.value.path == str(policy) and "unknown class" in err.value.message
    policy.write_text('public = ["Xylophone-Secret"]\n[private]\nvalue = ["xylophone-secret"]\n')
    with pytest.raises(BadInput) as err:
        redact_bundle(raw_trial, tmp_path / "out", policy=policy)
    assert "both" in str(err.value) and "xylophone" not in str(err.value).lower()


def test_short_key_refused(raw_trial, tmp_path):
    with pytest.raises(BadInput, match="at least 16 bytes"):
        redact_bundle(raw_trial, tmp_path / "out", key=b"short")
    assert not (tmp_path / "out").exists()


def test_private_map_inside_out_refused(raw_trial, tmp_path):
    with pytest.raises(BadInput, match="outside RAW and OUT"):
        redact_bundle(raw_trial, tmp_path / "out", key=KEY, map_out=tmp_path / "out" / "map.json")


def test_a_leak_marks_the_output_not_publishable(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    # A private serial number the collector wrote as a JSON number: numbers are never
    # rewritten, so only the final scan can catch it.
    (raw / "telemetry" / "board.jsonl").write_text(json.dumps({"t": 0.5, "board": int(corpus.SERIAL)}) + "\n")
    result = redact_bundle(raw, tmp_path / "out", policy=Policy(private={"serial": [corpus.SERIAL]}))
    assert not result.publishable
    assert [(f.file, f.line, f.cls) for f in result.findings] == [("telemetry/board.jsonl", 1, "serial")]
    out = tmp_path / "out"
    assert not (out / "manifest.json").exists()
    marker = (out / MARKER_NAME).read_text()
    assert "telemetry/board.jsonl:1: serial" in marker and corpus.SERIAL not in marker
    # The same evidence with the field dropped is publishable.
    (raw / "telemetry" / "board.jsonl").unlink()
    again = redact_bundle(raw, out, policy=Policy(private={"serial": [corpus.SERIAL]}), replace=True)
    assert again.publishable and (out / "manifest.json").is_file() and not (out / MARKER_NAME).exists()


def test_deeply_nested_json_is_bad_input_not_a_traceback(tmp_path):
    """Harvesting parsed trial.json without catching RecursionError: a traceback instead of exit 2."""
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "trial.json").write_text('{"private": ' + "[" * 50_000 + "]" * 50_000 + "}\n")
    with pytest.raises(BadInput, match="nested too deeply"):
        redact_bundle(raw, tmp_path / "out")
    assert not (tmp_path / "out").exists() and _leftovers(tmp_path) == []


def test_a_deeply_nested_manifest_is_scanned_not_a_traceback(tmp_path):
    from evidence_kit.redact import scan_tree

    (tmp_path / "manifest.json").write_text("[" * 50_000 + "]" * 50_000 + "\n")
    assert scan_tree(tmp_path) == []


def test_a_file_dropped_on_a_second_redaction_leaves_the_receipt(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    first = redact_bundle(raw, tmp_path / "once", key=b"fabricated-test-key-0123456789abcdef")
    counted = json.loads((first.out / "receipt.json").read_text())["counts"]
    log = next(name for name in counted if name.startswith("logs/") and name.endswith("-engine.log"))
    second = redact_bundle(first.out, tmp_path / "twice", policy=Policy(drop=[log]))
    receipt = json.loads((second.out / "receipt.json").read_text())
    assert log not in receipt["counts"] and receipt["dropped"] == [log]
    assert {k: v for k, v in counted.items() if k != log} == receipt["counts"]  # the rest carries forward
