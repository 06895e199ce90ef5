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


def test_a_binary_file_is_withheld_and_a_dropped_one_only_named(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    (raw / "logs" / "engine.log.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(32))
    (raw / "logs" / "latin1.log").write_bytes(b"caf\xe9 on gpu-node-17\n")
    result = redact_bundle(raw, tmp_path / "out")
    assert result.publishable and len(result.withheld) == 7  # both withheld unread, listed like any raw file
    dropped = redact_bundle(raw, tmp_path / "dropped", policy=Policy(drop=["logs/*.gz"]))
    assert len(dropped.dropped) == 1 and dropped.dropped[0].startswith("logs/path-")
    assert json.loads((tmp_path / "dropped" / "receipt.json").read_text())["dropped"] == dropped.dropped


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
    assert err.value.path == str(policy) and "unknown kind" in err.value.message
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


def test_a_known_value_in_a_public_field_marks_the_output_not_publishable(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    # A private serial planted as a JSON number in a public field: published as it is, so only the final
    # scan can catch it (the policy declares the serial).
    journal = raw / "journals" / "01-original-before.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    record["completion_tokens"] = int(corpus.SERIAL)
    lines[1] = json.dumps(record) + "\n"
    journal.write_text("".join(lines))
    result = redact_bundle(raw, tmp_path / "out", policy=Policy(private={"serial": [corpus.SERIAL]}))
    assert not result.publishable
    assert [(f.file, f.line, f.cls) for f in result.findings] == [("journals/01-original-before.jsonl", 2, "serial")]
    out = tmp_path / "out"
    assert not (out / "manifest.json").exists()
    marker = (out / MARKER_NAME).read_text()
    assert "journals/01-original-before.jsonl:2: serial" in marker and corpus.SERIAL not in marker


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


def test_a_policy_declaring_an_ordinary_word_is_refused_saying_how_to_declare_it(raw_trial, tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text('[private]\nmodel = ["tiny"]\n')
    with pytest.raises(BadInput) as err:
        redact_bundle(raw_trial, tmp_path / "out", policy=policy)
    assert err.value.path == str(policy) and err.value.line == 1 and "english-word" in err.value.message
    assert "declare the whole name" in err.value.message and "tiny" not in err.value.message
