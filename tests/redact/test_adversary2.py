"""Second adversarial review of the redactor: each test is one finding, asserting the promised behaviour.

Every test here failed when written (branch ``adversary2``): a private value that survived in a
bundle called publishable, or a promise of docs/redaction.md that the code does not keep.
"""

from __future__ import annotations

import json
import shutil

from evidence_kit.redact import redact_bundle
from evidence_kit.redact.policy import Policy

from . import corpus
from .conftest import KEY
from .leakcheck import survivors
from .test_adversary import _cli, _published
from .test_leak_classes import plant

# -- trust of an earlier redaction (_redacted_before) ----------------------------------------


def test_a_decision_folder_of_redacted_trials_does_not_trust_its_own_unverified_files(tmp_path):
    # _redacted_before checks each *trial* bundle's receipt and manifest, never the files of the
    # decision folder outside them. Redacted trials gathered under a freshly written decision.toml
    # switch the whole run to "already redacted": a real host spelled like a pseudonym after a
    # label (hostname=gpu-9), and the short name of a host the policy declares (host-12 of
    # host-12.acme.internal), are left in the new, never-redacted file, and it is called publishable.
    first = redact_bundle(corpus.make_raw_trial(tmp_path / "raw"), tmp_path / "trial-out", key=KEY)
    assert first.publishable
    decision = tmp_path / "decision"
    decision.mkdir()
    shutil.copytree(first.out, decision / "cache-layout")
    (decision / "decision.toml").write_text(
        'id = "d1"\ndate = "2026-11-01"\ntitle = "t"\ntrials = ["cache-layout"]\n\n[narrative]\n'
        'why_it_matters = "Ran on hostname=gpu-9; the jump host was host-12."\n'
    )
    result = redact_bundle(decision, tmp_path / "out", key=KEY, policy=Policy(private={"host": ["host-12.acme.internal"]}))
    assert _published(result, ["gpu-9", "host-12"]) == []


# -- harvest ---------------------------------------------------------------------------------


def test_a_private_mapping_keyed_by_user_names_has_its_keys_hunted(tmp_path):
    # Keys "spelled like a field name" (lowercase letters and underscores) are never values, but
    # user names are spelled exactly so: a per-user mapping under `private` is published verbatim,
    # in the journal header itself and in every log that names the users.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"quota_by_user": {"kjohnson": 120, "mpatel": 80}},
        {"logs/quota.txt": "quota kjohnson 120\nquota mpatel 80\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["kjohnson", "mpatel"]) == []


# -- labelled values ---------------------------------------------------------------------------


def test_a_json_label_pair_after_an_array_ending_in_a_colon_string_is_still_read(tmp_path):
    # walkers._PAIR is run over the raw JSON text: a match may start at a *closing* quote. After
    # ["x", ":"] it matches `", ":"], "` and swallows the opening quote of "hostname", so the pair
    # "hostname": "boxqz7" is never seen, by the redactor or by the scan.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/meta.json": json.dumps({"sep": ["x", ":"], "hostname": "boxqz7"})})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["boxqz7"]) == []


def test_a_labelled_passphrase_with_spaces_is_redacted_whole(tmp_path):
    # "the value after a private label, whatever it looks like": the label pattern stops at the
    # first space, so only the first word of a passphrase is learnt and the rest is published.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/env.txt": 'password = "tulip wombat quarry"\n'})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["wombat", "quarry"]) == []


# -- variants ----------------------------------------------------------------------------------


def test_a_mac_written_without_leading_zeros_is_hunted(tmp_path):
    # macOS `arp -a` and `ifconfig` print 00:1a:2b:3c:4d:5e as 0:1a:2b:3c:4d:5e. No variant spells
    # a declared MAC so, and the mac detector needs two digits an octet.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/arp.txt": "? (10.1.1.1) at 0:1a:2b:3c:4d:5e on en0 ifscope [ethernet]\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY, policy=Policy(private={"mac": ["00:1a:2b:3c:4d:5e"]}))
    assert _published(result, ["0:1a:2b:3c:4d:5e"]) == []


def test_a_secret_variable_with_a_prefix_is_redacted(tmp_path):
    # The label pattern refuses a label after a letter, digit or underscore, so every prefixed
    # secret variable is unlabelled: POSTGRES_PASSWORD=…, DB_PASSWORD: …, AWS_SECRET_ACCESS_KEY=…,
    # in an env dump and in `docker inspect`'s Config.Env (the corpus ships one).
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={
            "logs/env.txt": "POSTGRES_PASSWORD=kq7Zp2mWx\nDB_PASSWORD: Trombone88\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzqkeyzz\n",
            "logs/inspect.json": json.dumps([{"Config": {"Env": ["POSTGRES_PASSWORD=kq7Zp2mWx", "PATH=/usr/bin"]}}]),
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["kq7Zp2mWx", "Trombone88", "wJalrXUtnFEMI"]) == []


def test_an_authorization_header_value_is_redacted_whole(tmp_path):
    # `authorization` is a documented label, but only its first word ("Basic") is taken: the
    # credentials after it are published.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/req.txt": "Authorization: Basic dXNlcjpodW50ZXIy\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["dXNlcjpodW50ZXIy"]) == []


def test_an_api_key_flag_or_header_is_redacted(tmp_path):
    # vLLM's own flag is --api-key (a hyphen, not api_key or apikey), with a space or `=`; the HTTP
    # header is X-Api-Key. None is a label, and a key without a known prefix has no token shape.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={
            "logs/cmd.txt": "vllm serve x --port 8000 --api-key Heron42key\nvllm serve y --api-key=Egret42key\n",
            "logs/req.txt": "X-Api-Key: Plover55key\n",
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["Heron42key", "Egret42key", "Plover55key"]) == []


def test_re_redacting_a_keyed_bundle_hunts_a_declared_hosts_short_name_spelled_like_a_counter(tmp_path):
    # A bundle redacted with a key holds no counter pseudonyms (its receipt says hmac-sha256), yet
    # re-redacting it trusts every counter-shaped spelling: the policy now declares
    # gpu-7.acme.internal, and its short name gpu-7, left in by the first run (it was not known
    # then), stays in a bundle called publishable. Redacting the raw folder with the same policy
    # replaces it.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/ssh.txt": "ssh gpu-7 nvidia-smi\n"})
    first = redact_bundle(raw, tmp_path / "first", key=KEY)
    result = redact_bundle(first.out, tmp_path / "out", key=KEY, policy=Policy(private={"host": ["gpu-7.acme.internal"]}))
    assert _published(result, ["gpu-7"]) == []


def test_a_value_written_with_unicode_hyphens_is_hunted(tmp_path):
    # Word processors and chat tools paste U+2011 (non-breaking hyphen), U+2010 (hyphen) or U+2212
    # (minus) for "-": the text reads exactly the same. Full-width letters are folded in a view,
    # but NFKC maps U+2011 to U+2010, never to "-", so gpu‑node‑17 and falcon‑secret‑70b survive.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={"logs/notes.txt": "served from gpu\u2011node\u201117; model falcon\u2010secret\u201070b; rack gpu\u2212node\u221217\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    text = (result.out / "logs" / "notes.txt").read_text() if result.publishable else ""
    for spelled in ("gpu\u2011node\u201117", "falcon\u2010secret\u201070b", "gpu\u2212node\u221217"):
        assert spelled not in text


def test_a_known_value_with_its_separators_swapped_is_hunted(tmp_path):
    # A hyphenated or spaced name written with underscores (a Python module, a W&B run, a metric
    # label, a folder name): falcon_secret_70b, Project_Bluebird. No variant swaps separators.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"project": "Project Bluebird"},
        {"logs/notes.txt": "wandb run falcon_secret_70b-sweep3\nckpt folder Project_Bluebird_ckpt\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["falcon_secret_70b", "Project_Bluebird"]) == []


def test_a_labelled_serial_written_as_a_json_number_is_never_called_publishable(tmp_path):
    # The labelled pair needs a string value, so `"serial_number": 1324021045678` outside `private`
    # is read by nobody. Numbers outside `private` never change, so the bundle cannot be fixed
    # silently -- but it must not be called publishable with the serial in it.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={
            "logs/board.json": json.dumps({"board": {"serial_number": 1324021045678, "power_w": 300}}),
            "telemetry/board.jsonl": json.dumps({"t": 1, "SerialNumber": 1324021045679}) + "\n",
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["1324021045678", "1324021045679"]) == []


# -- crashes ---------------------------------------------------------------------------------


def test_a_private_value_holding_a_lone_surrogate_escape_is_bad_input_not_a_traceback(tmp_path):
    # `"\ud800"` is valid JSON; harvested under `private`, the value reaches the URL-encoded
    # variant (urllib.parse.quote), which cannot encode a lone surrogate: UnicodeEncodeError.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/x.json": '{"private": {"note": "zq\\ud800-secret-kestrel"}}\n'})
    done = _cli("redact", str(raw), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-500:]
    assert "x.json" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_bare_host_name_under_a_host_or_node_key_is_redacted(tmp_path):
    # `hostname` and `nodename` are labels, `host` and `node` are not: a machine's short name
    # (no dots, so no host detector) in telemetry's "host"/"node"/"instance" fields, in HOST=…, or
    # in Slurm's SLURMD_NODENAME=… (prefixed, so not even `nodename` counts) is published.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={
            "telemetry/nodes.jsonl": json.dumps({"t": 1, "host": "boxqz9", "node": "rackqz3", "instance": "cabqz5:9400"}) + "\n",
            "logs/env.txt": "HOST=boxqz9\nSLURMD_NODENAME=rackqz3\n",
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["boxqz9", "rackqz3", "cabqz5"]) == []


# -- widening and the discovery shortcut ---------------------------------------------------------


def test_a_value_glued_after_a_widened_value_keeps_its_hit(tmp_path):
    # matcher._known_hits widens gpu-node-17 over the letters that follow ("Quokka"), then skips
    # the declared "Quokka Harbor" because it starts inside the widened run: the words of the
    # declared value after its first are published, and the scan (which sees "host-… Harbor") agrees.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"codename": "Quokka Harbor"}, {"logs/run.txt": "ckpt gpu-node-17Quokka Harbor done\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["Harbor"]) == []


def test_the_round_two_shortcut_leaves_no_stale_result_for_the_rewrite(tmp_path):
    # Round one: gpu-node-17 is widened to gpu-node-17models, which swallows the start of the
    # model's spelling models--acme-labs--…, so the text's result holds the host and no model.
    # Round two: the new spelling gpu-node-17models lands exactly on that hit, so _already_found
    # keeps the stale result; the final matcher would see acme-labs--falcon-secret-70b after it.
    # The rewrite leaves the model in, the scan finds it: a clean input is refused.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/run.txt": "cache gpu-node-17models--acme-labs--falcon-secret-70b\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert survivors(result.out, ["falcon-secret-70b"]) == []


def test_a_number_under_a_unit_suffixed_key_is_a_quantity_not_an_identity(tmp_path):
    # is_quantity_key knows `bytes`, `ms`, `mib`… but no other unit: hz, bps, watts, mw, usd, c.
    # A private link speed of 400000000000 bps becomes a "serial", so the same public number
    # elsewhere is changed in a log and makes a JSON file unpublishable.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"uplink_bps": 400000000000, "sm_clock_hz": 1980000000},
        {"logs/nic.txt": "link up at 400000000000 bps, clock 1980000000 Hz\n", "logs/nic.json": json.dumps({"nic_speed": 400000000000})},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert (result.out / "logs" / "nic.txt").read_text() == "link up at 400000000000 bps, clock 1980000000 Hz\n"


# -- one value, one pseudonym ----------------------------------------------------------------------


def test_an_ipv4_mapped_address_has_one_pseudonym_in_either_spelling(tmp_path):
    # ::ffff:10.9.8.7 and ::ffff:a09:807 are one IPv6 address (and the IPv4 10.9.8.7). The dotted
    # spelling becomes "::ffff:ip-2" (the IPv4 inside it), the hex spelling a pseudonym of its own.
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/peers.txt": "addr ::ffff:10.9.8.7\nv4 10.9.8.7\nmapped ::ffff:a09:807\n"})
    redact_bundle(raw, tmp_path / "out", map_out=tmp_path / "map.json")
    entries = json.loads((tmp_path / "map.json").read_text())["entries"]
    named = {
        pseudonym
        for pseudonym in (e["pseudonym"] for e in entries if any(v.lower() in ("10.9.8.7", "::ffff:a09:807", "::ffff:10.9.8.7") for v in e["values"]))
    }
    assert len(named) == 1, entries


def test_a_decision_folder_without_trials_is_not_trusted_vacuously(tmp_path):
    # _redacted_before returns True when every trial bundle checks out -- and a decision folder
    # holding no trial.json has none, so raw notes are taken for an earlier redaction's output.
    # Here the same host is replaced in decision.toml (where a full stop follows it) and left in
    # notes.txt, in a bundle called publishable.
    decision = tmp_path / "decision"
    decision.mkdir()
    (decision / "decision.toml").write_text(
        'id = "d1"\ndate = "2026-11-01"\ntitle = "t"\ntrials = []\n\n[narrative]\nwhy_it_matters = "Ran on hostname=gpu-9."\n'
    )
    (decision / "notes.txt").write_text("ssh jump; hostname=gpu-9\n")
    result = redact_bundle(decision, tmp_path / "out", key=KEY)
    assert _published(result, ["gpu-9"]) == []


# -- the scan's excused hashes ---------------------------------------------------------------------


def test_a_digest_in_any_file_called_manifest_json_is_not_excused_everywhere(tmp_path):
    # published_hashes excuses every sha256/digest listed by *any* file whose name is manifest.json,
    # at any depth, and the excuse holds in every file of the tree. An OCI image manifest in the
    # evidence (image/manifest.json) thus hides the private image digest from scan_tree -- the
    # `scan` command and the site build's last step -- in the logs too.
    from evidence_kit.redact import scan_tree

    digest = "7e3b9a41c2d5f6081a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081"
    (tmp_path / "b" / "image").mkdir(parents=True)
    (tmp_path / "b" / "logs").mkdir()
    (tmp_path / "b" / "image" / "manifest.json").write_text(json.dumps({"schemaVersion": 2, "config": {"digest": "sha256:" + digest}}))
    (tmp_path / "b" / "logs" / "pull.txt").write_text(f"pulled registry/x@sha256:{digest}\n")
    findings = scan_tree(tmp_path / "b")
    assert any(f.file == "logs/pull.txt" for f in findings), findings


def test_scanning_raw_evidence_reports_a_labelled_host_spelled_like_a_pseudonym(tmp_path):
    # scan_tree always calls for_scanning (detector hits spelled like pseudonyms are pseudonyms),
    # though `scan` is documented for raw evidence too: there hostname=gpu-2 is a real host (as
    # docs/redaction.md says), yet only hostname=boxqz9 is reported.
    from evidence_kit.redact import scan_tree

    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "env.txt").write_text("hostname=boxqz9\nhostname=gpu-2\n")
    assert {f.line for f in scan_tree(tmp_path / "raw")} == {1, 2}


# -- numbers -------------------------------------------------------------------------------------


def test_a_toml_number_equal_to_a_serial_leaves_valid_toml(tmp_path):
    # A .toml file is rewritten line by line as text: a bare number equal to a known serial (the
    # corpus's GPU serial 1322021012345, here a TOML integer outside `private`) becomes a bare
    # serial-… and the output no longer parses -- in a bundle called publishable. (JSON numbers
    # under `private` become quoted strings; numbers elsewhere are promised never to change.)
    import tomllib

    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"conf/run.toml": "[gpu]\nboard = 1652020012345\nlimit = 1322021012345\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    if result.publishable:
        tomllib.loads((result.out / "conf" / "run.toml").read_text())
