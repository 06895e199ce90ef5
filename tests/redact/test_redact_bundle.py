"""The redactor end to end on the planted-canary corpus: nothing private left, numbers intact."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

from evidence_kit.attest import build_manifest
from evidence_kit.model import Manifest, Receipt
from evidence_kit.read import load_decision, load_trial, read_json_model
from evidence_kit.redact import (
    known_values_from_raw,
    redact_bundle,
    scan_tree,
)

from . import corpus
from .conftest import KEY
from .leakcheck import survivors


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_no_canary_survives_in_content_or_names(raw_trial, redacted):
    assert survivors(raw_trial, corpus.CANARIES), "the corpus must plant the canaries"
    assert redacted.publishable, [str(f) for f in redacted.findings]
    assert survivors(redacted.out, corpus.CANARIES) == []


def test_public_words_and_numbers_survive(redacted):
    text = "".join(p.read_text() for p in sorted((redacted.out / "logs").iterdir()))
    for word in corpus.PUBLIC:
        assert word in text, word
    assert "1.234567e+16" in text  # a float's mantissa is not a hex fingerprint
    assert "00000000:01:00.0" in text  # a PCI bus id is not private


def test_every_request_figure_is_unchanged(raw_trial, redacted):
    before, after = load_trial(raw_trial), load_trial(redacted.out)
    for old, new in zip(before.arms, after.arms, strict=True):
        assert len(old.requests) == len(new.requests) > 0
        for a, b in zip(old.requests, new.requests, strict=True):
            assert a.model_dump(exclude={"error"}) == b.model_dump(exclude={"error"})
            assert (a.error is None) == (b.error is None)
        assert [r.model_dump() for r in old.runs] == [r.model_dump() for r in new.runs]
        assert old.footer == new.footer
        assert old.header.engine == new.header.engine
    raw_line = (raw_trial / "journals/01-original-before.jsonl").read_text().splitlines()[1]
    out_line = (redacted.out / "journals/01-original-before.jsonl").read_text().splitlines()[1]
    assert raw_line == out_line  # a request line without private strings is copied byte for byte


def test_manifest_lists_every_file_with_its_hash(redacted):
    manifest = read_json_model(redacted.out / "manifest.json", Manifest)
    assert manifest == build_manifest(redacted.out)
    paths = [entry.path for entry in manifest.files]
    assert paths == sorted(paths)
    assert "receipt.json" in paths and "manifest.json" not in paths
    for entry in manifest.files:
        data = (redacted.out / entry.path).read_bytes()
        assert (entry.size, entry.sha256) == (len(data), hashlib.sha256(data).hexdigest())


def test_output_passes_the_scan_even_with_every_raw_value(raw_trial, redacted):
    known = known_values_from_raw(raw_trial)
    assert len(known) >= 10
    assert scan_tree(redacted.out, known_values=known) == []
    assert scan_tree(raw_trial, known_values=known) != []


def test_same_value_same_pseudonym_in_every_file(redacted):
    header = json.loads((redacted.out / "journals/01-original-before.jsonl").read_text().splitlines()[0])
    gpu0, gpu1 = header["private"]["gpu_uuids"]
    host = header["private"]["host"]
    assert gpu0 != gpu1 and gpu0.startswith("gpu-") and host.startswith("host-")
    restored = json.loads((redacted.out / "journals/03-original-restored.jsonl").read_text().splitlines()[0])
    assert restored["private"] == header["private"] | {"arm_label": restored["private"]["arm_label"]}
    telemetry = json.loads((redacted.out / "telemetry/gpus.jsonl").read_text().splitlines()[0])
    assert sorted(telemetry["gpus"]) == sorted([gpu0, gpu1])
    assert (redacted.out / "telemetry" / f"{gpu1}.jsonl").is_file()
    assert f"GPU UUID                              : {gpu0}" in (redacted.out / "logs/nvidia-smi-q.txt").read_text()
    assert (redacted.out / "logs" / f"{host}-engine.log").is_file()  # the short name in a file name
    assert header["private"]["model"] in (redacted.out / "logs" / f"{host}-engine.log").read_text()


def test_receipt_counts_without_values(redacted):
    receipt = read_json_model(redacted.out / "receipt.json", Receipt)
    assert receipt.key_id == redacted.key_id and receipt.key_id.startswith("key-")
    assert receipt.counts["telemetry/gpus.jsonl"]["gpu"] >= 10
    text = (redacted.out / "receipt.json").read_text().lower()
    for canary in corpus.CANARIES:
        assert canary.lower() not in text
        assert hashlib.sha256(canary.encode()).hexdigest() not in text


def test_raw_is_never_modified(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    before = _tree(raw)
    redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _tree(raw) == before


def test_redacting_a_redacted_bundle_changes_no_byte(redacted, tmp_path):
    again = redact_bundle(redacted.out, tmp_path / "again", key=KEY)
    assert again.publishable
    assert _tree(again.out) == _tree(redacted.out)


def test_same_key_same_bytes_other_key_other_pseudonyms(raw_trial, redacted, tmp_path):
    second = redact_bundle(raw_trial, tmp_path / "second", key=KEY)
    assert _tree(second.out) == _tree(redacted.out)
    other = redact_bundle(raw_trial, tmp_path / "other", key=b"another-fabricated-key-0000000000")
    first_header = (redacted.out / "journals/01-original-before.jsonl").read_text().splitlines()[0]
    other_header = (other.out / "journals/01-original-before.jsonl").read_text().splitlines()[0]
    assert json.loads(first_header)["private"]["model"] != json.loads(other_header)["private"]["model"]


def test_keyed_pseudonyms_are_stable_across_bundles(tmp_path):
    a = redact_bundle(corpus.make_raw_trial(tmp_path / "a", "trial-a"), tmp_path / "out-a", key=KEY)
    b = redact_bundle(corpus.make_raw_trial(tmp_path / "b", "trial-b"), tmp_path / "out-b", key=KEY)
    private = [json.loads((r.out / "journals/01-original-before.jsonl").read_text().splitlines()[0])["private"] for r in (a, b)]
    assert private[0] == private[1]


def test_counter_pseudonyms_without_a_key_are_deterministic(raw_trial, tmp_path):
    one = redact_bundle(raw_trial, tmp_path / "one")
    two = redact_bundle(raw_trial, tmp_path / "two")
    assert _tree(one.out) == _tree(two.out)
    assert one.key_id == "none" and one.publishable
    header = json.loads((one.out / "journals/01-original-before.jsonl").read_text().splitlines()[0])
    assert header["private"]["gpu_uuids"] == ["gpu-1", "gpu-2"]


def test_private_map_is_written_privately(raw_trial, tmp_path):
    result = redact_bundle(raw_trial, tmp_path / "out", key=KEY, map_out=tmp_path / "private" / "map.json")
    path = tmp_path / "private" / "map.json"
    assert path.stat().st_mode & 0o777 == 0o600
    entries = {e["pseudonym"]: e["values"] for e in json.loads(path.read_text())["entries"]}
    header = json.loads((result.out / "journals/01-original-before.jsonl").read_text().splitlines()[0])
    assert corpus.GPUS[0] in entries[header["private"]["gpu_uuids"][0]]
    assert not any(p.name == "map.json" for p in result.out.rglob("*"))


def test_decision_folder(raw_decision, tmp_path):
    result = redact_bundle(raw_decision, tmp_path / "pub", key=KEY)
    assert result.publishable and result.bundles == ["cache-layout", "dflash"]
    assert survivors(result.out, corpus.CANARIES) == []
    decision = load_decision(result.out)
    assert [t.trial.trial_id for t in decision.trials] == ["cache-layout", "dflash"]
    narrative = tomllib.loads((result.out / "decision.toml").read_text())["narrative"]["why_it_matters"]
    host = json.loads((result.out / "dflash/journals/01-original-before.jsonl").read_text().splitlines()[0])["private"]["host"]
    assert host in narrative
    for trial in result.bundles:
        assert (result.out / trial / "receipt.json").is_file()
        assert read_json_model(result.out / trial / "manifest.json", Manifest) == build_manifest(result.out / trial)
    # The decision folder's own manifest lists everything below it, trial manifests included (issue 10, item 12).
    assert read_json_model(result.out / "manifest.json", Manifest) == build_manifest(result.out)
