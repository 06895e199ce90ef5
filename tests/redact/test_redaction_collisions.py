"""Two breaks the planted-values property found (recorded as strict xfails until fixed): a value
that redaction turned into something the output scan reads as private, and two JSON keys that
redaction turned into one key (a JSON reader keeps only the last value: a value lost)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.redact import redact_bundle
from evidence_kit.redact.detectors import compile_detectors, find


def _redact(tmp_path: Path, files: dict[str, str]):
    raw = tmp_path / "trial"
    raw.mkdir()
    (raw / "trial.json").write_text(json.dumps({"trial_id": "t"}) + "\n")
    for name, text in files.items():
        (raw / name).write_text(text)
    return redact_bundle(raw, tmp_path / "out" / "bundle")


@pytest.mark.parametrize(
    "value",
    [
        "01322021012345a://0",  # a hex run before '://': the run alone became hex-1, and hex-1://0 is URL-shaped
        "0132a://gpu-node-7/x",
        "d" * 70 + "0://h",  # a scheme longer than any bound
        "7://0",
    ],
)
def test_a_scheme_that_starts_with_a_digit_is_one_url_and_stays_publishable(tmp_path: Path, value: str) -> None:
    result = _redact(tmp_path, {"data.json": json.dumps({"doc": value}) + "\n"})
    assert result.publishable, result.findings
    assert json.loads((result.out / "data.json").read_text())["doc"] == "url-1"


def test_the_host_of_a_digit_scheme_url_is_hunted_elsewhere(tmp_path: Path) -> None:
    result = _redact(tmp_path, {"data.json": json.dumps({"doc": "0132a://gpu-node-7/x", "also": "on gpu-node-7"}) + "\n"})
    assert result.publishable
    assert "gpu-node-7" not in (result.out / "data.json").read_text()


def test_a_long_dotted_run_without_a_url_is_scanned_in_linear_time() -> None:
    # A scheme bounded only at the start of its run: a start after every '.' would cost n^2/2 steps.
    text = "a." * 200_000 + " then http://h"
    assert [cls for _, _, cls in find(compile_detectors(), text)] == ["url"]


def test_two_keys_that_take_one_pseudonym_keep_both_values(tmp_path: Path) -> None:
    document = {"gpu-07": 0, "gpu-07.cluster.acme-corp.internal": None}
    result = _redact(tmp_path, {"data.json": json.dumps({"doc": document}) + "\n"})
    after = json.loads((result.out / "data.json").read_text())
    assert after["doc"] == {"host-1": 0, "host-1 (2)": None}
    assert result.publishable


def test_keys_stay_distinct_in_journal_lines_on_both_rewrite_paths(tmp_path: Path) -> None:
    lines = [
        {"a": {"gpu-07": 0, "gpu-07.cluster.acme-corp.internal": None}},  # the plain (split) path
        {"x": "caf\u00e9\\", "n": {"gpu-07": 1, "gpu-07.cluster.acme-corp.internal": 3, "host-1 (2)": 5}},  # escapes
    ]
    result = _redact(tmp_path, {"runs.jsonl": "".join(json.dumps(line) + "\n" for line in lines)})
    first, second = (json.loads(line) for line in (result.out / "runs.jsonl").read_text().splitlines())
    assert first["a"] == {"host-1": 0, "host-1 (2)": None}
    assert sorted(second["n"].values()) == [1, 3, 5]


def test_a_key_the_source_wrote_twice_is_left_as_written(tmp_path: Path) -> None:
    text = '{"doc": {"gpu-07": 0, "gpu-07": 1}, "gpu-07": [{"gpu-07": "gpu-07.cluster.acme-corp.internal"}]}\n'
    result = _redact(tmp_path, {"data.json": text})
    assert (result.out / "data.json").read_text() == '{"doc": {"host-1": 0, "host-1": 1}, "host-1": [{"host-1": "host-1"}]}\n'


def test_toml_keys_that_collide_make_the_bundle_unpublishable_naming_the_file(tmp_path: Path) -> None:
    plan = '[hosts]\ngpu-07 = 1\n"gpu-07.cluster.acme-corp.internal" = 2\n'
    result = _redact(tmp_path, {"plan.toml": plan})
    assert not result.publishable
    assert [(f.file, f.source) for f in result.findings] == [("plan.toml", "broken")]
