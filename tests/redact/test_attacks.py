"""Attacks on publication by construction: each a place an identity could hide, and what holds it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evidence_kit.errors import BadInput
from evidence_kit.model import Receipt
from evidence_kit.read import load_trial, read_json_model
from evidence_kit.redact import Policy, redact_bundle

from . import corpus
from .conftest import KEY
from .leakcheck import survivors


def _edit_header(raw: Path, change) -> None:
    journal = raw / "journals" / "01-original-before.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    change(header)
    lines[0] = json.dumps(header) + "\n"
    journal.write_text("".join(lines))


def test_an_identity_planted_in_a_public_field_is_left_out(tmp_path):
    # engine.version is public: published as it is, so only a version fits it (model/texts.py). A host
    # written there is left out, whether or not the evidence names it elsewhere; the receipt counts it.
    raw = corpus.make_raw_trial(tmp_path / "raw")
    _edit_header(raw, lambda h: h["engine"].update(version=f"0.11.1 on {corpus.HOST}"))
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable and survivors(result.out, ["gpu-node-17"]) == []
    assert read_json_model(result.out / "receipt.json", Receipt).withheld_fields["EngineInfo.version (not a version)"] == 1


def test_an_extra_field_holding_a_host_is_withheld_not_published(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    _edit_header(raw, lambda h: h.update(operator_host="kestrel-7.ops.acme-corp.internal"))
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable and survivors(result.out, ["kestrel-7"]) == []
    assert read_json_model(result.out / "receipt.json", Receipt).withheld_fields["Header"] == 1


def test_a_withheld_files_name_holding_a_host_is_a_pseudonym(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    (raw / "kestrel-7.ops.acme-corp.internal.txt").write_text("nothing\n")
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable and survivors(result.out, ["kestrel-7"]) == []
    assert all("kestrel" not in name for name in result.withheld)


def test_a_private_value_in_prose_is_bad_input_whatever_its_spelling(tmp_path):
    for title in (f"On {corpus.HOST.upper()}", "gpu\u200b-node-17 scouts", "gpu%2Dnode-17 scouts", "falcon secret 70b trial"):
        raw = corpus.make_raw_trial(tmp_path / "raw", "cache-layout")
        trial = json.loads((raw / "trial.json").read_text())
        (raw / "trial.json").write_text(json.dumps(trial | {"title": title}))
        with pytest.raises(BadInput, match="Trial.title holds a private value"):
            redact_bundle(raw, tmp_path / "out", key=KEY)
        assert not (tmp_path / "out").exists()


def test_an_engine_error_body_is_not_published(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    journal = raw / "journals" / "02-candidate-candidate.jsonl"
    text = journal.read_text().replace("connection reset by", "http 404: The model `acme-labs/falcon-secret-70b` does not exist; reset by")
    journal.write_text(text)
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    errors = {r.error for arm in load_trial(result.out).arms for r in arm.requests if not r.ok}
    assert result.publishable and errors == {"http-4xx"}


def test_hostile_bytes_in_a_log_are_withheld_and_in_a_journal_refused(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    (raw / "logs" / "hostile.log").write_bytes(b"\xff\xfe\x00gpu-node-17\x1b[31m" + bytes(range(256)))
    assert redact_bundle(raw, tmp_path / "out", key=KEY).publishable
    journal = raw / "journals" / "03-original-restored.jsonl"
    journal.write_bytes(journal.read_bytes() + b'{"type": "check", "name": "x\xff", "ok": true}\n')
    with pytest.raises(BadInput) as err:
        redact_bundle(raw, tmp_path / "again", key=KEY)
    assert (err.value.path or "").endswith("03-original-restored.jsonl") and err.value.line is not None


def test_a_raw_folder_of_the_previous_layout_publishes_its_settings_nowhere_and_hunts_no_setting(tmp_path):
    # The collector once filed vLLM's cache_config (cache_dtype "auto", ...) and its /version under private:
    # withheld now, and never hunted (auto would be found in the site's own CSS).
    raw = corpus.make_raw_trial(tmp_path / "raw")
    _edit_header(raw, lambda h: h["private"].update(cache_config={"cache_dtype": "auto", "block_size": "16"}, version={"version": "0.11.1"}))
    result = redact_bundle(raw, tmp_path / "out", key=KEY, map_out=tmp_path / "map.json")
    assert result.publishable
    hunted = {v for e in json.loads((tmp_path / "map.json").read_text())["entries"] for v in e["values"]}
    assert not hunted & {"auto", "16", "0.11.1"}


_LABEL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=4, max_size=10)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(host=_LABEL, user=_LABEL, place=st.sampled_from(["header-extra", "private-extra", "log", "file-name", "telemetry-extra"]))
def test_a_planted_identity_never_survives_wherever_it_is_planted(tmp_path_factory, host, user, place):
    root = tmp_path_factory.mktemp("planted")
    raw = corpus.make_raw_trial(root / "raw")
    secret = f"zq{host}-{user}.corp.internal"
    _edit_header(raw, lambda h: h["private"].update(host=secret))  # known: the header names it
    if place == "header-extra":
        _edit_header(raw, lambda h: h.update(note=f"ran on {secret}"))
    elif place == "private-extra":
        _edit_header(raw, lambda h: h["private"].update(jump_host=secret))
    elif place == "log":
        (raw / "logs" / "extra.log").write_text(f"\x1b[1m{secret}\x1b[0m\n{json.dumps({'h': secret})}\n")
    elif place == "file-name":
        (raw / "logs" / f"{secret}.log").write_text("x\n")
    else:
        telemetry = raw / "telemetry" / "01-original-before.jsonl"
        telemetry.write_text(json.dumps({"type": "sample", "t_s": 0.0, "where": secret}) + "\n")
    result = redact_bundle(raw, root / "out", key=KEY, policy=Policy())
    assert result.publishable, [str(f) for f in result.findings]
    assert survivors(result.out, [secret, f"zq{host}-{user}"]) == []
