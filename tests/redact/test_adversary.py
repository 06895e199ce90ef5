"""Adversarial review of the redactor: each test is one finding, asserting the promised behaviour.

Every test here failed on the redactor when it was written (branch ``adversary``): a private
value that survived while the bundle was called publishable, a crash instead of exit 2, a
number outside ``private`` that was changed, or one pseudonym for two values. Each plants the
smallest input that shows it into the canary corpus (:mod:`.corpus`).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

from evidence_kit.read import load_trial
from evidence_kit.redact import redact_bundle, scan_tree

from . import corpus
from .conftest import KEY
from .leakcheck import survivors
from .test_leak_classes import JOURNAL, plant


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "evidence_kit", *args], capture_output=True, text=True, env=env)


def _published(result, canaries) -> list[tuple[str, str]]:
    """Canaries left in a bundle the redactor called publishable (empty when it said not publishable)."""
    return survivors(result.out, list(canaries)) if result.publishable else []


# -- leaks -----------------------------------------------------------------------------------


def test_a_labelled_host_spelled_like_a_pseudonym_is_redacted_and_never_shares_a_pseudonym(tmp_path):
    # A real host called gpu-2 (a common naming scheme) after a private label. The labelled-value
    # detector finds it, but a hit spelled like a pseudonym is "allowed", so it stays; with counter
    # pseudonyms the corpus's second GPU UUID is *also* written gpu-2: two values, one name.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/env.txt": "hostname=gpu-2\n"})
    result = redact_bundle(raw, tmp_path / "out")  # counters
    assert "gpu-2" not in (result.out / "logs" / "env.txt").read_text()


def test_a_stray_receipt_in_raw_evidence_does_not_exempt_real_values_spelled_like_pseudonyms(tmp_path):
    # A raw trial folder holding a receipt.json (copied in by mistake, or planted) switches the
    # whole run to "already redacted": every private value spelled like a pseudonym is left as it is.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"jump": "gpu-3", "ssh_host": "host-12"}, {"logs/ssh.txt": "ssh gpu-3; ssh host-12\n"})
    (raw / "receipt.json").write_text(
        json.dumps({"schema": "evidence-kit/receipt/v1", "tool_version": "0", "key_id": "none", "counts": {}, "policy_digest": "sha256:" + "0" * 64})
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["gpu-3", "host-12"]) == []


def test_a_host_under_a_known_domain_keeps_no_label_of_its_own(tmp_path):
    # The corpus declares gpu-node-17.lab.acme-corp.internal. A sibling host of the same domain,
    # never declared, is exactly what the host detector finds -- but the known parent domain is
    # masked first, so the detector sees nothing and the output reads "gpu-node-18.domain-…".
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/peers.txt": "peer gpu-node-18.lab.acme-corp.internal up\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["gpu-node-18"]) == []


def test_a_host_name_under_a_key_that_names_no_class_still_has_its_short_name_hunted(tmp_path):
    # "server" (or "bastion", "login", "peer"…) is not one of the key hints, so the FQDN is a plain
    # "value": only the whole name is hunted, and being known masks it from the host detector,
    # which would otherwise have learnt it as a host. Declaring it protects it *less*.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"), {"server": "zeta-node-5.lab.zeta-corp.internal"}, {"logs/ssh.txt": "ssh zeta-node-5 uptime\n"}
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["zeta-node-5"]) == []


def test_an_endpoint_without_a_scheme_has_its_host_hunted(tmp_path):
    # "host:port" under `endpoint` is read as one opaque "ip" value; its host alone is not hunted.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"endpoint": "zeta-node-6:8123"}, {"logs/ssh.txt": "ssh zeta-node-6\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["zeta-node-6"]) == []


def test_the_password_of_a_private_url_is_hunted_on_its_own(tmp_path):
    # The user of an endpoint URL is a variant; its password is not.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"endpoint": "https://svc:Sup3rS3cretPw@api.zeta-corp.internal/v1"},
        {"logs/auth.txt": "retrying with Sup3rS3cretPw\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["Sup3rS3cretPw"]) == []


def test_base64_of_a_hosts_short_name_or_a_models_base_name_is_hunted(tmp_path):
    # Only the whole value is hunted inside base64, not its variants: a k8s secret holding
    # "ssh gpu-node-17" or "falcon-secret-70b" (both canaries of the corpus) survives.
    blob = base64.b64encode(b"cmd=ssh gpu-node-17 serve falcon-secret-70b").decode()
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/secret.txt": f"data: {blob}\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["gpu-node-17", "falcon-secret-70b"]) == []


def test_a_second_private_key_in_one_json_object_does_not_hide_the_first(tmp_path):
    # Duplicate keys are valid JSON to every parser used here; json.loads keeps the last one, so
    # the first `private` object (or the first of two equal keys inside it) is never harvested.
    raw = corpus.make_raw_trial(tmp_path / "raw")
    (raw / "extra.json").write_text('{"private": {"host": "zeta-rack-9"}, "private": {"note": "x"}}\n')
    (raw / "extra2.json").write_text('{"private": {"host": "zeta-rack-8", "host": "zeta-rack-1"}}\n')
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["zeta-rack-9", "zeta-rack-8"]) == []


def test_a_jsonl_record_whose_private_key_is_escaped_is_still_harvested(tmp_path):
    # Line 1 of a JSONL file is harvested with json.loads; later lines only when the raw text holds
    # '"private"', so "priv\u0061te" (the same key to any JSON parser) is skipped.
    raw = corpus.make_raw_trial(tmp_path / "raw")
    path = raw / JOURNAL
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(2, '{"type": "note", "priv\\u0061te": {"host": "zeta-rack-9"}}\n')
    path.write_text("".join(lines))
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["zeta-rack-9"]) == []


def test_an_identifying_number_written_as_a_float_under_private_is_redacted(tmp_path):
    # A serial that went through a float (pandas, JavaScript, jq) is written 9988776655443.0 or
    # 9988776655443e0: floats are never harvested, so it stays as it was under `private`.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"board_serial": 9988776655443.0})
    (raw / "extra.json").write_text('{"private": {"psu_serial": 7766554433221e0}}\n')
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["9988776655443", "7766554433221"]) == []


def test_a_number_under_a_serial_num_key_is_private(tmp_path):
    # "serial_num" names a serial; the quantity pattern matches its "_num" and calls it a count.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"gpu_serial_num": 9988776655443}, {"logs/smi.txt": "serial 9988776655443\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["9988776655443"]) == []


def test_combining_marks_do_not_hide_a_known_value(tmp_path):
    # Judgement call: U+0332 (combining low line) after every letter renders as the underlined
    # name, fully legible. Format characters are removed in a view; non-spacing marks are not.
    underlined = "".join(c + "\u0332" for c in "gpu-node-17")
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/motd.txt": f"node {underlined}\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    text = (result.out / "logs" / "motd.txt").read_text()
    assert not result.publishable or "gpu-node-17" not in text.replace("\u0332", "")


def test_a_labelled_value_in_single_quotes_is_found(tmp_path):
    # hostname='…' (shell, .env files, Python reprs, YAML) is as labelled as hostname="…".
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"conf/node.env": "HOSTNAME='zeta-rack-8'\nAPI_KEY='Zq7xWv2Lr9Tt'\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["zeta-rack-8", "Zq7xWv2Lr9Tt"]) == []


def test_an_ipv6_address_starting_with_a_double_colon_is_detected(tmp_path):
    # The ip detector needs a group before "::": ::ffff:a14:1e28 (10.20.30.40, the corpus's private
    # LAN address, as an IPv4-mapped address) and ::1:2:3:4 style addresses pass untouched.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/v6.txt": "peer ::ffff:a14:1e28 and ::ffff:0a14:1e29 and ::dead:beef:1:2\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    text = (result.out / "logs" / "v6.txt").read_text()
    assert not result.publishable or ("a14:1e28" not in text and "dead:beef" not in text)


# -- one value, one pseudonym ----------------------------------------------------------------


def test_one_ipv6_address_in_its_compressed_and_full_forms_gets_one_pseudonym(tmp_path):
    # fe80::1c2d:3e4f:5a6b:7c8d (the corpus's IPv6) written in full, or with one zero group kept,
    # is the same address; each spelling gets a pseudonym of its own.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={"logs/v6.txt": ("a fe80::1c2d:3e4f:5a6b:7c8d\nb FE80:0000:0000:0000:1C2D:3E4F:5A6B:7C8D\nc fe80:0:0:0:1c2d:3e4f:5a6b:7c8d\n")},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    names = {line.split()[1] for line in (result.out / "logs" / "v6.txt").read_text().splitlines()}
    assert len(names) == 1, names


# -- numbers outside `private` ---------------------------------------------------------------


def test_a_digit_key_under_a_quantity_key_is_not_private(tmp_path):
    # The rule: a string of digits under a key naming a quantity (…_pid) is never private, so it can
    # never rewrite a timing. Keys skip that rule: {"per_pid": {"204857": …}} makes 204857 private,
    # and a latency of 204857 µs in a CSV becomes a pseudonym.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"per_pid": {"204857": {"rss_bytes": 1}}}, {"logs/latency.csv": "t,latency_us\n0,204857\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert (result.out / "logs" / "latency.csv").read_text() == "t,latency_us\n0,204857\n"


def test_numbers_under_a_plural_quantity_key_are_not_private(tmp_path):
    # "start_times", "worker_pids", "ports": the quantity pattern knows "time", "pid" and "port"
    # but not their plurals, so epoch seconds under `private` become serials and every equal
    # timestamp in a log or CSV outside `private` is rewritten.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"start_times": [1730451600], "worker_pids": ["204858"]},
        {"logs/events.csv": "ts,pid\n1730451600,204858\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert (result.out / "logs" / "events.csv").read_text() == "ts,pid\n1730451600,204858\n"


def test_a_negative_identifying_number_under_private_leaves_valid_json(tmp_path):
    # The sign is left in front of the quoted pseudonym: "account": -"serial-…" is not JSON, and
    # the bundle, called publishable, no longer loads.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"account": -9988776655443})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    for line in (result.out / JOURNAL).read_text().splitlines():
        json.loads(line)
    load_trial(result.out)


# -- crashes ---------------------------------------------------------------------------------


def test_deeply_nested_toml_is_bad_input_not_a_traceback(tmp_path):
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"conf/deep.toml": "a = " + "[" * 2000 + "]" * 2000 + "\n"})
    done = _cli("redact", str(raw), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-500:]
    assert "deep.toml" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_scan_raw_with_deeply_nested_toml_is_bad_input_not_a_traceback(tmp_path):
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"conf/deep.toml": "a = " + "{b = " * 1500 + "1" + "}" * 1500 + "\n"})
    (tmp_path / "site").mkdir()
    done = _cli("scan", str(tmp_path / "site"), "--raw", str(raw))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-500:]


def test_many_private_values_each_a_prefix_of_the_next_do_not_crash(tmp_path):
    # A private list walking down a directory tree (/srv/run/d, /srv/run/d/d, …): each spelling is
    # a prefix of the next, the trie nests one group per value and re.compile overflows the stack.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"dirs": ["/srv/run" + "/d" * i for i in range(1, 700)]})
    done = _cli("redact", str(raw), "--out", str(tmp_path / "out"))
    assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr, done.stderr[-500:]


# -- the scan --------------------------------------------------------------------------------


def test_scan_does_not_pass_a_folder_holding_a_symbolic_link(tmp_path):
    # `scan DIR` skips symbolic links silently, name and target: a published site or bundle folder
    # holding one (served by any web server that follows links) is reported clean.
    (tmp_path / "private.txt").write_text("peer 10.20.30.40\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "notes.txt").symlink_to(tmp_path / "private.txt")
    (site / "10.20.30.41.txt").symlink_to(tmp_path / "private.txt")
    try:
        findings = scan_tree(site)
    except Exception as err:  # refusing it (bad input) is fine too
        assert type(err).__name__ == "BadInput"
        return
    assert findings


def test_a_json_integer_of_thousands_of_digits_is_bad_input_not_a_traceback(tmp_path):
    # json.loads refuses integers over 4300 digits with a ValueError that is not a JSONDecodeError:
    # harvest_file lets it through (redact and scan --raw both crash).
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/big.json": '{"n": 1' + "0" * 5000 + "}\n"})
    done = _cli("redact", str(raw), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-500:]
    assert "big.json" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_model_in_the_collectors_own_models_list_has_every_model_spelling_hunted(tmp_path):
    # capture_identity writes private["models"] = [{"id", "root", "parent", "max_model_len", "owned_by"}]
    # from /v1/models. "id" and "root" name no class, so an org/name model there is a plain "value":
    # its base name and its Hugging Face cache folder are not hunted.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {
            "models": [
                {"id": "zeta-labs/owl-secret-9b", "root": "zeta-labs/owl-secret-9b", "parent": None, "max_model_len": 131072, "owned_by": "vllm"}
            ]
        },
        {"logs/engine.log": "loaded owl-secret-9b from models--zeta-labs--owl-secret-9b\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["owl-secret-9b", "zeta-labs"]) == []


def test_the_paths_in_a_start_command_are_hunted_as_paths(tmp_path):
    # The collector's private["start_command"] usually starts with "vllm" or "python", so it is a
    # "value", never read as a command line: a quoted path with a space in it is hunted only as part
    # of the whole command, and the path detector stops at the space.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"start_command": "vllm serve '/srv/work/Project Kestrel/ckpt-owl' --port 8000"},
        {"logs/engine.log": "loading /srv/work/Project Kestrel/ckpt-owl now\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["Kestrel"]) == []


# -- fails closed, but on valid input ----------------------------------------------------------


def test_a_trial_folder_named_after_a_private_host_gets_its_receipt_and_manifest_under_the_redacted_name(tmp_path):
    # Files are written under the redacted folder name, but receipt.json and manifest.json go to
    # tmp / <raw folder name>: a second folder spelled with the private host appears in the output
    # (the scan catches it, so the bundle is never publishable and the real trial has no manifest).
    root = corpus.make_raw_decision(tmp_path / "dec")
    (root / "cache-layout").rename(root / "gpu-node-17-run")
    toml = root / "decision.toml"
    toml.write_text(toml.read_text().replace('"cache-layout"', '"gpu-node-17-run"'))
    result = redact_bundle(root, tmp_path / "out", key=KEY)
    assert not any("gpu-node-17" in p.name for p in result.out.iterdir())
    assert result.publishable, [str(f) for f in result.findings]


# -- one value, two pseudonyms (continued) -----------------------------------------------------


def test_the_model_listed_in_models_before_model_gets_one_pseudonym(tmp_path):
    # The collector writes private = {"endpoint", "models": [{"id": …}], …, "model": …}: the model
    # is first met as the "value" under models[].id, then as the "model". The whole name becomes
    # value-N, its cache folder and base name model-M: one model, two pseudonyms.
    raw = corpus.make_raw_trial(tmp_path / "raw")
    path = raw / JOURNAL
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["private"] = {"models": [{"id": corpus.MODEL, "owned_by": "vllm"}], **header["private"]}
    lines[0] = json.dumps(header) + "\n"
    path.write_text("".join(lines))
    plant(raw, files={"logs/names.log": f"a {corpus.MODEL}\nb models--acme-labs--falcon-secret-70b\nc falcon-secret-70b\n"})
    result = redact_bundle(raw, tmp_path / "out")
    names = {line.split()[1] for line in (result.out / "logs" / "names.log").read_text().splitlines()}
    assert len(names) == 1, names


def test_a_yaml_line_continuation_is_caught_even_when_a_later_document_does_not_parse(tmp_path):
    # The scan parses YAML to see what a parser joins ("gpu-node-\⏎  17" is gpu-node-17), but with
    # list(yaml.safe_load_all(...)): one bad document later in the stream (a truncated capture)
    # throws away the documents before it, and the split host is called publishable.
    text = 'note: "served by gpu-node-\\\n  17 today"\n---\nx: [\n'
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"conf/a.yaml": text})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert not result.publishable or "gpu-node-\\\n  17" not in (result.out / "conf" / "a.yaml").read_text()


def test_a_private_value_holding_a_dotted_capital_i_is_hunted(tmp_path):
    # "İ" (U+0130, Turkish) lowercases to two characters; Matcher._add drops every variant whose
    # lowercase changes length, so such a value (a name, a site) is silently never hunted at all.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"operator_name": "İlker Yıldız", "site": "İZMİR-gpu-01"},
        {"logs/run.log": "run by İlker Yıldız on İZMİR-gpu-01\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    text = (result.out / "logs" / "run.log").read_text()
    assert not result.publishable or ("Yıldız" not in text and "İZMİR" not in text), text


def test_a_private_value_in_decomposed_unicode_is_hunted(tmp_path):
    # macOS writes file names decomposed (NFD): "renée" as "rene" + U+0301. The hidden-letter view
    # normalises character by character, which never composes, so the NFD spelling of a private NFC
    # value (and the other way round) survives, in contents and in file names.
    import unicodedata

    nfd = unicodedata.normalize("NFD", "renée-lab")
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"ssh_user": "renée-lab"}, {"logs/login.log": f"user {nfd} ok\n", f"logs/{nfd}.txt": "x\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    seen = "\n".join([(result.out / "logs" / "login.log").read_text(), *(p.name for p in (result.out / "logs").iterdir())])
    assert not result.publishable or "renée" not in unicodedata.normalize("NFC", seen), seen


def test_the_short_form_of_a_private_revision_in_git_describe_output_is_redacted(tmp_path):
    # git describe and setuptools-scm write a revision as "g" + 7 hex digits (v0.11.1-3-g3f9c2a7,
    # 0.11.1.dev3+g3f9c2a7.d20251101: how vLLM reports a fork's version). Spellings under 8
    # characters match only as whole words, and the "g" glued on makes it no word.
    short = corpus.REVISION[:7]
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={"logs/version.log": f"vLLM version 0.11.1.dev3+g{short}.d20251101\nbuilt from v0.11.1-3-g{short}\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, [short]) == []


def test_the_path_of_a_private_url_is_hunted(tmp_path):
    # A URL's variants are itself, its host and user: its path is not. A model given as its Hugging
    # Face URL or an s3:// URI (shape beats the "model" key) leaves org/name and the name alone unhunted.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"draft_model": "https://huggingface.co/zeta-labs/owl-secret-9b", "model_uri": "s3://zeta-weights/ckpts/kestrel-secret-3b/step-1200"},
        {"logs/engine.log": "loaded zeta-labs/owl-secret-9b; ckpts/kestrel-secret-3b/step-1200\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["owl-secret-9b", "kestrel-secret-3b"]) == []


def test_one_mac_address_in_its_usual_spellings_gets_one_pseudonym_and_none_survives(tmp_path):
    # The corpus's MAC, 02:42:ac:11:00:03, as ip link, Windows and Cisco print it and bare: colon and
    # dash forms get two different mac pseudonyms, the bare one a hex pseudonym, the Cisco one survives.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={"logs/mac.log": ("a 02:42:ac:11:00:03\nb 02-42-AC-11-00-03\nc 0242.ac11.0003\nd 0242ac110003\n")},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    names = {line.split()[1] for line in (result.out / "logs" / "mac.log").read_text().splitlines()}
    assert len(names) == 1, names


def test_a_gpu_uuid_without_its_dashes_gets_the_same_pseudonym(tmp_path):
    # nvidia-smi's GPU-5b1c2d3e-… written without dashes (as some exporters key metrics) is the same
    # GPU; it is found by the hex detector and gets a hex pseudonym of its own.
    bare = corpus.GPUS[0][4:].replace("-", "")
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/gpu.log": f"a {corpus.GPUS[0]}\nb {bare}\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    names = {line.split()[1] for line in (result.out / "logs" / "gpu.log").read_text().splitlines()}
    assert len(names) == 1, names


def test_a_value_the_policy_declares_private_is_never_silently_public(tmp_path):
    # Judgement call. Listing a value both private and public in the policy is an error (exit 2), but
    # a declared value that is a built-in public word (a project called "Falcon") is dropped without
    # a word and published. Either refuse the policy or redact it; not both silently.
    from evidence_kit.errors import BadInput
    from evidence_kit.redact.policy import Policy

    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/notes.log": "project Falcon kickoff\n"})
    try:
        result = redact_bundle(raw, tmp_path / "out", key=KEY, policy=Policy(private={"value": ["Falcon"]}))
    except BadInput:
        return
    assert _published(result, ["project falcon"]) == []


def test_a_labelled_value_in_a_json_or_jsonl_file_is_found(tmp_path):
    # The docs list '"Hostname": "…"' as a labelled value. That works in a .txt file, but .json and
    # .jsonl are examined one string literal at a time: the key and its value are never seen together,
    # so {"Hostname": …, "password": …, "serial_number": …} (docker inspect, nvidia-smi -x, a node
    # inventory) passes untouched.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={
            "logs/node.json": json.dumps({"Hostname": "zeta-box7", "password": "Zq7xWv2Lr9Tt", "serial_number": "PX9921XQ"}) + "\n",
            "logs/node.jsonl": json.dumps({"hostname": "zeta-box6"}) + "\n",
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["zeta-box7", "Zq7xWv2Lr9Tt", "PX9921XQ", "zeta-box6"]) == []


def test_a_file_name_that_grows_past_the_name_limit_is_bad_input_not_a_traceback(tmp_path):
    # A 245-byte name listing short host names (an NCCL test across many nodes) becomes ~500 bytes
    # once each gpu-07 is a keyed host-xxxxxxxx: the OSError (ENAMETOOLONG) escapes as a traceback.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/" + "gpu-07_" * 35 + ".txt": "x\n"})
    key = tmp_path / "key"
    key.write_bytes(KEY)
    done = _cli("redact", str(raw), "--out", str(tmp_path / "out"), "--key", str(key))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-500:]
    assert len(done.stderr.strip().splitlines()) == 1


def test_one_long_private_string_does_not_exhaust_memory(tmp_path):
    # The trie regex stores, for every node, the pattern of its whole subtree: a spelling of n
    # characters costs O(n²) memory, times its ~5 encoded spellings. A 20 kB private value (a chat
    # template, a kubeconfig, a PEM bundle) takes 2.4 GB; 60 kB is killed by the kernel (exit 137,
    # no message). Run here under a 1.5 GB address-space limit with a 30 kB value.
    import random
    import resource
    import string

    rng = random.Random(1)
    blob = "".join(rng.choice(string.ascii_letters + " /") for _ in range(30_000))
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"chat_template": blob})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-m", "evidence_kit", "redact", str(raw), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000)),
    )
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr[-300:]


def test_a_deeply_nested_policy_file_is_bad_input_not_a_traceback(tmp_path):
    raw = corpus.make_raw_trial(tmp_path / "raw")
    policy = tmp_path / "policy.toml"
    policy.write_text("public = " + "[" * 1500 + "]" * 1500 + "\n")
    done = _cli("redact", str(raw), "--out", str(tmp_path / "out"), "--policy", str(policy))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-500:]


def test_a_map_path_that_is_a_folder_is_refused_before_anything_is_written(tmp_path):
    # --map pointing at an existing folder: the bundle is moved into place (manifest and all), then
    # writing the map raises IsADirectoryError as a traceback. Bad input must be exit 2, nothing written.
    raw = corpus.make_raw_trial(tmp_path / "raw")
    (tmp_path / "private").mkdir()
    done = _cli("redact", str(raw), "--out", str(tmp_path / "out"), "--map", str(tmp_path / "private"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-500:]
    assert not (tmp_path / "out").exists()
