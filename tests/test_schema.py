"""`evidence-kit schema` writes JSON Schemas that accept real evidence and reject bad records."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from evidence_kit.analyze import analyze
from evidence_kit.read import load_decision
from evidence_kit.schemas import schemas

from .conftest import REPO


def test_schemas_validate_real_evidence(tmp_path: Path, reference_decision: Path, run_cli) -> None:
    out = tmp_path / "schemas"
    result = run_cli("schema", "--out", out)
    assert result.code == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "analysis.schema.json",
        "decision.schema.json",
        "journal-record.schema.json",
        "manifest.schema.json",
        "receipt.schema.json",
        "telemetry-sample.schema.json",
        "trial.schema.json",
    ]
    load = lambda name: json.loads((out / f"{name}.schema.json").read_text())  # noqa: E731
    trial_schema, record_schema = load("trial"), load("journal-record")
    bundle = reference_decision / "dflash"
    jsonschema.validate(json.loads((bundle / "trial.json").read_text()), trial_schema)
    records = jsonschema.Draft202012Validator(record_schema)  # built once: one per line took seconds
    for journal in (bundle / "journals").iterdir():
        for line in journal.read_text().splitlines():
            records.validate(json.loads(line))
    bad = {"type": "request", "run": "r1", "repetition": "1"}
    try:
        jsonschema.validate(bad, record_schema)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a request with a string repetition passed the schema")
    doc = analyze(load_decision(reference_decision)).model_dump(mode="json", by_alias=True)
    jsonschema.validate(doc, load("analysis"))


def test_schema_output_is_deterministic(tmp_path: Path, run_cli) -> None:
    run_cli("schema", "--out", tmp_path / "a")
    run_cli("schema", "--out", tmp_path / "b")
    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_every_committed_evidence_file_validates_against_its_schema() -> None:
    # The published evidence (evidence/ and its copies under site/) was written by earlier
    # versions of the tool: the schemas generated today must still accept all of it.
    validators = {name: jsonschema.Draft202012Validator(body) for name, body in schemas().items()}
    checked = {"trial": 0, "journal-record": 0, "telemetry-sample": 0}
    for root in (REPO / "evidence", REPO / "site"):
        for path in sorted(root.rglob("trial.json")):
            validators["trial"].validate(json.loads(path.read_text()))
            checked["trial"] += 1
        for kind, folder in (("journal-record", "journals"), ("telemetry-sample", "telemetry")):
            for path in sorted(root.rglob(f"{folder}/*.jsonl")):
                for line in path.read_text().splitlines():
                    validators[kind].validate(json.loads(line))
                    checked[kind] += 1
    assert all(checked.values()), checked
