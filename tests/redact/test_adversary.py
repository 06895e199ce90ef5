"""The adversary's round on publication by construction (issue 23, point 7): each finding, as a test.

Each test plants a value where the attack put it, or takes evidence the attack showed the redactor
damaging or refusing, and asserts what holds now.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidence_kit.errors import BadInput
from evidence_kit.model import Receipt
from evidence_kit.model.engine_kinds import ENGINE_KINDS
from evidence_kit.model.texts import COMPOSED
from evidence_kit.read import read_json_model
from evidence_kit.redact import Policy, redact_bundle

from . import corpus
from .conftest import KEY
from .leakcheck import survivors

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "evidence"


def test_a_bundle_of_the_previous_version_redacts_again_publishable(tmp_path):
    # Its headers' private parts hold the old layout's `version` object, whose fields are the earlier
    # redaction's pseudonyms: they are earlier pseudonyms, not private values to hunt (they once made
    # every header a "model" finding, the bundle not publishable).
    for folder in sorted(p for p in COMMITTED.iterdir() if (p / "decision.toml").is_file()):
        raw = tmp_path / folder.name
        shutil.copytree(folder, raw)
        result = redact_bundle(raw, tmp_path / "out" / folder.name, key=KEY)
        assert result.publishable, [str(f) for f in result.findings]


def _edit(raw: Path, kind: str, change) -> None:
    """Change the first record of ``kind`` in the before arm's journal."""
    journal = raw / "journals" / "01-original-before.jsonl"
    lines = journal.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == kind)
    record = json.loads(lines[index])
    change(record)
    lines[index] = json.dumps(record)
    journal.write_text("\n".join(lines) + "\n")


def _with_gate_and_check(raw: Path) -> None:
    journal = raw / "journals" / "01-original-before.jsonl"
    lines = journal.read_text().splitlines()
    gate = {"type": "gate", "name": "smoke", "target": "direct", "ok": True, "detail": "http 200, streamed 13 token events, finish stop"}
    check = {"type": "check", "name": "process-stable", "ok": True, "detail": "started engine alive through the arm"}
    journal.write_text("\n".join([lines[0], json.dumps(gate), *lines[1:-1], json.dumps(check), lines[-1]]) + "\n")


UNKNOWN = "kestrel-9.ops.example-corp.net"  # a host nothing in the evidence names as an identity: the scan cannot know it

_TEXT_NAMES = {
    "EngineInfo.version": "version",
    "CacheSettings.cache_dtype": "KV cache type",
    "CollectorInfo.python": "version",
    "Request.key": "request key",
    "Run.mismatches": "collector sentence",
    "Gate.detail": "collector sentence",
    "Check.detail": "collector sentence",
}
OPTIONAL_TEXTS = {
    "EngineInfo.version": ("header", lambda r: r["engine"].update(version=f"0.11.1+{UNKNOWN}")),
    "CacheSettings.cache_dtype": ("header", lambda r: r["engine"].update(cache={"cache_dtype": UNKNOWN})),
    "CollectorInfo.python": ("header", lambda r: r.update(collector={"python": UNKNOWN})),
    "Request.key": ("request", lambda r: r.update(key=f"{UNKNOWN}/0")),
    "Run.mismatches": ("run", lambda r: r.update(mismatches=[f"prompt_tokens: engine +1 on {UNKNOWN}"])),
    "Gate.detail": ("gate", lambda r: r.update(detail=f"ConnectError: {UNKNOWN}:8000 refused")),
    "Check.detail": ("check", lambda r: r.update(detail=f"engine at 10.20.30.40 ({UNKNOWN}) stopped")),
}


@pytest.mark.parametrize("where", sorted(OPTIONAL_TEXTS))
def test_a_public_string_that_does_not_fit_its_shape_is_left_out(tmp_path, where):
    # A public field is published as it is, so its type says what it holds: an unknown host planted there
    # once went out untouched in a bundle called publishable. Now it is left out, and the receipt says so.
    kind, change = OPTIONAL_TEXTS[where]
    raw = corpus.make_raw_trial(tmp_path / "raw")
    _with_gate_and_check(raw)
    _edit(raw, kind, change)
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable and survivors(result.out, ["kestrel-9", "10.20.30.40"]) == []
    withheld = read_json_model(result.out / "receipt.json", Receipt).withheld_fields
    assert withheld.get(f"{where} (not a {_TEXT_NAMES[where]})") == 1, withheld


REQUIRED_TEXTS = {
    "Header.started_at": ("header", lambda r: r.update(started_at=UNKNOWN)),
    "Footer.ended_at": ("footer", lambda r: r.update(ended_at=f"2026-11-01T09:00:00Z {UNKNOWN}")),
    "Gate.name": ("gate", lambda r: r.update(name=UNKNOWN)),
    "Gate.target": ("gate", lambda r: r.update(target=UNKNOWN)),
    "Check.name": ("check", lambda r: r.update(name=UNKNOWN)),
}


@pytest.mark.parametrize("where", sorted(REQUIRED_TEXTS))
def test_a_required_public_string_that_does_not_fit_is_bad_input_naming_the_field(tmp_path, where):
    kind, change = REQUIRED_TEXTS[where]
    raw = corpus.make_raw_trial(tmp_path / "raw")
    _with_gate_and_check(raw)
    _edit(raw, kind, change)
    with pytest.raises(BadInput, match=f": {where} is not a ") as err:
        redact_bundle(raw, tmp_path / "out", key=KEY)
    assert "kestrel" not in str(err.value) and not (tmp_path / "out").exists()


def test_the_collectors_own_texts_fit_and_are_published_as_they_are(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    _with_gate_and_check(raw)
    _edit(raw, "header", lambda r: r.update(engine={"version": "0.11.1rc2.dev140+g0c1d2e3.cpu", "cache": {"cache_dtype": "fp8_e4m3"}}))
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    published = (result.out / "journals" / "01-original-before.jsonl").read_text()
    for text in ("0.11.1rc2.dev140+g0c1d2e3.cpu", "fp8_e4m3", "http 200, streamed 13 token events, finish stop", "started engine alive"):
        assert text in published
    assert not [name for name in read_json_model(result.out / "receipt.json", Receipt).withheld_fields if "(not a " in name]


@pytest.mark.parametrize("kind", ENGINE_KINDS)
def test_the_engine_kind_check_is_published_whatever_the_kind(kind):
    """Found on the real llama.cpp tier: the preamble's check names the declared kind in quotes, and
    `llama.cpp` was no word of the collector's sentences, so its detail was withheld."""
    assert COMPOSED.fits(f'the engine is consistent with engine_kind "{kind}"')


def test_a_withheld_files_plain_name_does_not_make_the_bundle_unpublishable(tmp_path):
    # `docker inspect` saved as inspect.json and a pod as pod.json: their names were hunted as private
    # paths, and found inside their own records' names (`path-….docker-inspect.json`), so ordinary
    # evidence was not publishable. A withheld file's name is published nowhere but as its pseudonym.
    samples = Path(__file__).parent / "formats" / "samples"
    raw = corpus.make_raw_trial(tmp_path / "raw")
    shutil.copy(samples / "docker-inspect.json", raw / "logs" / "inspect.json")
    shutil.copy(samples / "kubectl-get-pod.json", raw / "logs" / "pod.json")
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert {"docker-inspect", "kubectl-pod"} <= {p.name.rsplit(".", 2)[-2] for p in (result.out / "logs").iterdir()}
    assert [w for w in result.withheld if "inspect" in w or "pod" in w] == []  # listed by their pseudonyms


@pytest.mark.parametrize(
    "title",
    [
        "On ka\u0308strel: faster",  # the host's accent written as a combining mark (NFD)
        "On kastrel: faster",  # without its accent
        "On xn--kstrel-bua: faster",  # its short name as DNS spells it
        "On XN--KSTREL-BUA.lab.example: faster",
    ],
)
def test_prose_naming_a_non_ascii_host_in_another_spelling_is_bad_input(tmp_path, title):
    # The declared host's spellings kept its accent while the text read lost it (or the reverse), and a
    # short name was never spelled in IDNA: each of these titles once passed the prose check.
    raw = corpus.make_raw_trial(tmp_path / "raw", "cache-layout")
    trial = json.loads((raw / "trial.json").read_text())
    (raw / "trial.json").write_text(json.dumps(trial | {"title": title}))
    with pytest.raises(BadInput, match="Trial.title holds a private value"):
        redact_bundle(raw, tmp_path / "out", key=KEY, policy=Policy(private={"host": ["kästrel.lab.example"]}))


@pytest.mark.parametrize(
    "sentence",
    [
        "engine at 00:11:22:33:44:55 stopped",  # a MAC of digits: a run of numbers once its colons split it
        "engine at 00:1f:ab:00:3f:be stopped",  # hex pairs that format specs and words once put in the vocabulary
        "ConnectError: fe80::1c2d:3e4f refused",
        "ConnectError: 10.20.30.40 refused",
        "ConnectError: gpu-node-17 refused",
        "http 404: model falcon-secret-70b does not exist",
    ],
)
def test_a_collector_sentence_holds_no_address_however_it_is_split(sentence):
    from evidence_kit.model.texts import COMPOSED

    assert not COMPOSED.fits(sentence)


def test_the_collectors_own_sentences_fit() -> None:
    from evidence_kit.model.texts import COMPOSED

    for sentence in (
        "http 200, streamed 13 token events, 173 content characters, finish stop",
        "configuration fingerprint matches the before arm; KV token slots 20480 vs 20480",
        "prompt_tokens: engine +12, client 10",
        'the engine is consistent with engine_kind "simulated"',
        "not ready after 600s",
        "2382 drafts, 6424 accepted tokens during timed runs",
    ):
        assert COMPOSED.fits(sentence), sentence


def test_prose_naming_a_cluster_file_system_is_not_refused_for_a_private_path(tmp_path):
    # The engine's model path sat under /lustre: `lustre` was hunted as a private folder, and a title saying
    # where the checkpoints were read from was refused. A file system's mount point names nobody.
    raw = corpus.make_raw_trial(tmp_path / "raw", "cache-layout")
    _edit(raw, "header", lambda r: r["private"].update(engine={"model_path": "/lustre/ckpt/falcon-secret-70b"}))
    trial = json.loads((raw / "trial.json").read_text())
    (raw / "trial.json").write_text(json.dumps(trial | {"title": "Cache layout, checkpoints read from Lustre (ckpt format)"}))
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable and "Lustre" in (result.out / "trial.json").read_text()
    with pytest.raises(BadInput, match="Trial.title holds a private value"):
        (raw / "trial.json").write_text(json.dumps(trial | {"title": "Cache layout for falcon-secret-70b"}))
        redact_bundle(raw, tmp_path / "out2", key=KEY)


@pytest.mark.parametrize("load", [1, 4, 256])
@pytest.mark.parametrize("rate", [None, 0.1, 2.0, 1e-05, 1234567.0, 1 / 3])
def test_every_run_name_and_key_the_collector_writes_fits_its_shape(load, rate):
    from evidence_kit.collect.conversations import conversation_keys
    from evidence_kit.collect.runs import run_id
    from evidence_kit.model.texts import REQUEST_KEY, RUN_NAME

    run = run_id(3, 8192, load if rate is None else rate, open_loop=rate is not None)
    assert RUN_NAME.fits(run) and RUN_NAME.fits("warmup")
    for key in (f"{run}/0", f"{run}/prime-{load}", "warmup/7", *conversation_keys(run, 2, 3)):
        assert REQUEST_KEY.fits(key), key
