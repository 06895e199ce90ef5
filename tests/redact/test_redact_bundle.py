"""The typed writer end to end on the planted-canary corpus: nothing private left, nothing public lost."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from evidence_kit.attest import build_manifest
from evidence_kit.errors import BadInput
from evidence_kit.model import Manifest, Receipt
from evidence_kit.read import load_decision, load_trial, read_json_model
from evidence_kit.redact import known_values_from_raw, redact_bundle, scan_tree

from . import corpus
from .conftest import KEY
from .leakcheck import survivors


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_no_canary_survives_in_content_or_names(raw_trial, redacted):
    assert survivors(raw_trial, corpus.CANARIES), "the corpus must plant the canaries"
    assert redacted.publishable, [str(f) for f in redacted.findings]
    assert survivors(redacted.out, corpus.CANARIES) == []


def test_raw_text_is_withheld_and_listed_by_name_size_and_sha256(raw_trial, redacted):
    receipt = read_json_model(redacted.out / "receipt.json", Receipt)
    listed = {w.path: w for w in receipt.withheld or []}
    assert len(listed) == 5  # the engine log, nvidia-smi, docker inspect, two telemetry files of no arm
    # What a format reader recognised is published as its typed record, never as its text: the bundle's
    # logs/ holds exactly the records the receipt names, one per recognised file.
    records = {w.record for w in listed.values() if w.record}
    # The engine log and nvidia-smi -q; the corpus's docker inspect is a fragment (no State, no HostConfig),
    # which the docker reader does not recognise, so it is withheld whole.
    assert len(records) == 2, sorted(listed)
    assert {p.relative_to(redacted.out).as_posix() for p in (redacted.out / "logs").iterdir()} == records
    assert not (redacted.out / "telemetry" / "gpus.jsonl").exists()
    raw = {p.stat().st_size for p in raw_trial.rglob("*") if p.is_file() and p.parent.name in ("logs", "telemetry")}
    assert {w.size for w in listed.values()} <= raw
    # A withheld file's name is raw text too: the collector names none of these, so each is a pseudonym.
    assert all(name.split("/")[-1].startswith("path-") for name in listed), sorted(listed)


def test_every_number_and_timestamp_is_published_unchanged(raw_trial, redacted):
    before, after = load_trial(raw_trial), load_trial(redacted.out)
    for old, new in zip(before.arms, after.arms, strict=True):
        assert len(old.requests) == len(new.requests) > 0
        for a, b in zip(old.requests, new.requests, strict=True):
            assert a.model_dump(exclude={"error"}) == b.model_dump(exclude={"error"})
        assert [r.model_dump() for r in old.runs] == [r.model_dump() for r in new.runs]
        assert old.footer == new.footer
        assert old.header.engine == new.header.engine and old.header.started_at == new.header.started_at


def test_a_failed_requests_reason_is_published_as_its_code(redacted):
    failed = [r for arm in load_trial(redacted.out).arms for r in arm.requests if not r.ok]
    assert failed and {r.error for r in failed} == {"disconnected"}  # "connection reset by <endpoint>..."


def test_undeclared_fields_are_withheld_and_counted_never_shown(redacted):
    receipt = read_json_model(redacted.out / "receipt.json", Receipt)
    trial = json.loads((redacted.out / "trial.json").read_text())
    assert "private" not in trial  # trial.json's extra `private` object is no field of the contract
    header = json.loads((redacted.out / "journals/01-original-before.jsonl").read_text().splitlines()[0])
    shown = {k for k, v in header["private"].items() if v is not None}
    assert shown == {"endpoint", "model", "host", "config_fingerprint"}  # the corpus's other keys are undeclared
    assert receipt.withheld_fields and receipt.withheld_fields["Trial"] == 1 and receipt.withheld_fields["HeaderPrivate"] > 0


def test_manifest_lists_every_file_with_its_hash(redacted):
    manifest = read_json_model(redacted.out / "manifest.json", Manifest)
    assert manifest == build_manifest(redacted.out)


def test_output_passes_the_scan_with_every_raw_identity(raw_trial, redacted):
    known = known_values_from_raw(raw_trial)
    assert len(known) >= 8
    assert scan_tree(redacted.out, known_values=known) == []


def test_same_value_same_pseudonym_in_every_file(redacted):
    hosts = {json.loads((redacted.out / ref).read_text().splitlines()[0])["private"]["host"] for ref in sorted((redacted.out / "journals").iterdir())}
    assert len(hosts) == 1 and next(iter(hosts)).startswith("host-")


def test_the_same_key_gives_the_same_bytes(raw_trial, redacted, tmp_path):
    again = redact_bundle(raw_trial, tmp_path / "again", key=KEY)
    assert _tree(again.out) == _tree(redacted.out)


def test_counter_pseudonyms_without_a_key_are_deterministic(raw_trial, tmp_path):
    one = redact_bundle(raw_trial, tmp_path / "one")
    two = redact_bundle(raw_trial, tmp_path / "two")
    assert _tree(one.out) == _tree(two.out) and one.key_id == "none"


def test_redacting_a_redacted_bundle_changes_no_byte(redacted, tmp_path):
    again = redact_bundle(redacted.out, tmp_path / "again", key=KEY)
    assert again.publishable
    assert _tree(again.out) == _tree(redacted.out)


def test_private_map_is_written_privately(raw_trial, tmp_path):
    result = redact_bundle(raw_trial, tmp_path / "out", key=KEY, map_out=tmp_path / "map.json")
    assert stat.S_IMODE((tmp_path / "map.json").stat().st_mode) == 0o600
    entries = json.loads((tmp_path / "map.json").read_text())["entries"]
    assert any(corpus.HOST in e["values"] for e in entries) and result.key_id.startswith("key-")


def test_decision_folder(raw_decision, tmp_path):
    result = redact_bundle(raw_decision, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    decision = load_decision(result.out)
    assert [t.trial.trial_id for t in decision.trials] == ["cache-layout", "dflash"]
    assert decision.decision.narrative["caveat"] == "Small natural-output scouts."
    assert survivors(result.out, corpus.CANARIES) == []


def test_prose_naming_a_private_value_is_refused_with_its_place_never_the_value(tmp_path):
    raw = corpus.make_raw_decision(tmp_path / "raw", narrative=corpus.LEAKING_NARRATIVE)
    with pytest.raises(BadInput) as caught:
        redact_bundle(raw, tmp_path / "out", key=KEY)
    message = str(caught.value)
    assert "decision.toml" in message and "Decision.narrative" in message and "host" in message
    assert corpus.HOST not in message and "gpu-node-17" not in message
    assert not (tmp_path / "out").exists()
