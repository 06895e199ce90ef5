"""One regression test per class of private value that once survived redaction (issue 10).

Each plants the value where a real log or tool puts it, redacts, and checks the
output with the independent survivor check (and, where it matters, that numbers
and structure are intact). Each failed on the redactor before discovery became
one fixed point over the original values.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import tomllib
from pathlib import Path

from evidence_kit.read import load_trial
from evidence_kit.redact import redact_bundle, scan_tree
from evidence_kit.redact.views import normalise

from . import corpus
from .conftest import KEY
from .leakcheck import survivors

JOURNAL = "journals/01-original-before.jsonl"


def plant(raw: Path, private: dict[str, object] | None = None, files: dict[str, str | bytes] | None = None) -> Path:
    """Add ``private`` entries to the first journal's header and write ``files`` into the raw trial."""
    if private:
        path = raw / JOURNAL
        lines = path.read_text().splitlines(keepends=True)
        header = json.loads(lines[0])
        header["private"].update(private)
        lines[0] = json.dumps(header) + "\n"
        path.write_text("".join(lines))
    for rel, content in (files or {}).items():
        target = raw / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    return raw


def _texts(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file())


def _map(tmp_path: Path) -> list[dict[str, object]]:
    return json.loads((tmp_path / "map.json").read_text())["entries"]


# 1 ------------------------------------------------------------------------------------------


def test_an_identifying_number_under_private_is_hunted_and_a_small_setting_is_not(tmp_path):
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"gpu_serial": 1322021012345, "board": {"ids": [7654321]}, "tensor_parallel_size": 2, "max_model_len": 131072},
        {
            "logs/serials.csv": "gpu,serial,tp\n0,1322021012345,2\n1,7654321,2\n",
            "logs/dmesg.txt": "board 7654321 online; SN1322021012345; took 0.1322021012345 s; tp=2\n",
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert survivors(result.out, ["1322021012345", "7654321"]) == []  # the survivor check skips decimal fractions too
    text = (result.out / "logs" / "dmesg.txt").read_text()
    assert "0.1322021012345 s" in text and "SN1322021012345" not in text  # a decimal fraction is a timing
    header = json.loads((result.out / JOURNAL).read_text().splitlines()[0])
    assert str(header["private"]["gpu_serial"]).startswith("serial-")  # the number became its pseudonym
    assert header["private"]["tensor_parallel_size"] == 2 and header["private"]["max_model_len"] == 131072
    assert ",2\n" in (result.out / "logs" / "serials.csv").read_text()
    before, after = load_trial(raw), load_trial(result.out)
    for old, new in zip(before.arms, after.arms, strict=True):
        assert [r.model_dump(exclude={"error"}) for r in old.requests] == [r.model_dump(exclude={"error"}) for r in new.requests]


# 2 ------------------------------------------------------------------------------------------


def test_a_path_with_a_space_is_a_path_and_its_parts_are_hunted(tmp_path):
    path = "/srv/projects/Project Bluebird/ckpt-falcon-secret"
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"checkpoint_dir": path},
        {
            "logs/train.log": "loading Bluebird/ckpt-falcon-secret\n"
            "cd /srv/projects/Project\\ Bluebird/ckpt-falcon-secret && ls\n"
            f"python eval.py --ckpt '{path}'\n"
            "see Project%20Bluebird/ckpt-falcon-secret\n"
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert survivors(result.out, ["Bluebird", "ckpt-falcon-secret"]) == []


# 3 ------------------------------------------------------------------------------------------


def test_a_short_host_name_shaped_like_a_pseudonym_is_hunted_and_never_handed_out(tmp_path):
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"hosts": ["gpu-07.cluster.acme-corp.internal", "host-2.acme-corp.internal"]},
        {"logs/cluster.log": "ssh gpu-07 nvidia-smi\nssh host-2 uptime\nGPU-7 ok\n"},
    )
    for key in (KEY, None):
        out = tmp_path / f"out-{key is None}"
        result = redact_bundle(raw, out, key=key, map_out=tmp_path / "map.json")
        assert result.publishable, [str(f) for f in result.findings]
        log = (out / "logs" / "cluster.log").read_text()
        assert "gpu-07" not in log and "ssh host-2 " not in log, log
        names = {entry["pseudonym"] for entry in _map(tmp_path)}
        assert not names & {"host-2", "gpu-7", "host-07"}  # no pseudonym is spelled like a real value


# 4 ------------------------------------------------------------------------------------------


def test_a_host_used_as_a_key_under_private_is_hunted(tmp_path):
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"per_host": {"dgx-b200-rack4": {"gpus": 8, "Rack7-spare": True}}},
        {"logs/cluster.log": "dgx-b200-rack4 joined; rack7-spare idle\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert survivors(result.out, ["dgx-b200-rack4", "rack7-spare"]) == []
    header = json.loads((result.out / JOURNAL).read_text().splitlines()[0])
    assert list(header["private"]["per_host"]) != ["dgx-b200-rack4"]
    assert "gpus" in next(iter(header["private"]["per_host"].values()))  # a field name stays a field name


# 5 ------------------------------------------------------------------------------------------


def test_toml_escapes_and_line_continuations_are_decoded_before_matching(tmp_path):
    raw = corpus.make_raw_decision(tmp_path / "raw")
    toml = (raw / "decision.toml").read_text()
    toml = toml.replace(
        'title = "Cache-layout and DFlash scouts: retain the current configuration"',
        'title = "Scouts on gpu\\U0000002Dnode\\u002D17 (acme\\u002Dlabs/falcon-secret\\u002D70b)"\n'
        'summary = """Served from gpu-node\\\n    -17 by acme-labs/falcon-sec\\\n  ret-70b."""',
    )
    (raw / "decision.toml").write_text(toml)
    tomllib.loads(toml)  # the planted file is valid TOML
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    decision = tomllib.loads((result.out / "decision.toml").read_text())
    shown = json.dumps(decision).lower()
    for value in ("gpu-node-17", "falcon-secret", "acme-labs"):
        assert value not in shown, value
    assert decision["trials"] == ["cache-layout", "dflash"]  # the rest of the document is unchanged


# 6 ------------------------------------------------------------------------------------------


def test_partly_escaped_spellings_give_one_pseudonym_and_no_relearning(tmp_path):
    line = (
        "weights at \\/data\\/hf\\/hub\\/models--acme-labs--falcon\\u002dsecret\\u002d70b "
        "route ?m=acme-labs%2Ffalcon%2Dsecret%2D70b served as acme-labs/falcon-secret-70b\n"
    )
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/mixed.log": line})
    result = redact_bundle(raw, tmp_path / "out", key=KEY, map_out=tmp_path / "map.json")
    assert result.publishable, [str(f) for f in result.findings]
    assert survivors(result.out, ["falcon", "acme-labs"]) == []
    entries = _map(tmp_path)
    models = [e for e in entries if e["class"] == "model" and any("falcon-secret-70b" in v.lower() for v in e["values"])]
    assert len(models) == 1, models  # one model, one pseudonym
    for entry in entries:  # nothing learnt from output: no value holds a pseudonym
        assert not any("org-" in v or "model-" in v for v in entry["values"]), entry


# 7 ------------------------------------------------------------------------------------------


def test_bytes_that_are_not_utf8_are_bad_input_with_file_and_line(tmp_path):
    for rel, content in (
        ("telemetry/gpus.jsonl", b'{"t": 1.0}\n{"t": 2.0, "note": "\xff\xfe"}\n'),
        ("logs/engine.log", b"ok\nstill ok\nbad \xc3\x28 byte\n"),
    ):
        raw = plant(corpus.make_raw_trial(tmp_path / rel.replace("/", "-")), files={rel: content})
        out = tmp_path / (rel.replace("/", "-") + "-out")
        proc = subprocess.run([sys.executable, "-m", "evidence_kit", "redact", str(raw), "--out", str(out)], capture_output=True, text=True)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert rel.split("/")[-1] in lines[0] and ":2" in lines[0] or ":3" in lines[0], lines[0]
        assert "not UTF-8" in lines[0]
        assert not out.exists() and not any(p.name.startswith(".") for p in out.parent.iterdir())
        scan = subprocess.run([sys.executable, "-m", "evidence_kit", "scan", str(raw)], capture_output=True, text=True)
        assert scan.returncode in (0, 1) and "Traceback" not in scan.stderr, scan.stderr


# 8 ------------------------------------------------------------------------------------------


def test_hidden_letters_padded_and_hex_addresses_and_base64_are_hunted(tmp_path):
    host, ip = corpus.HOST, "10.20.30.40"
    blob = base64.b64encode(f'{{"endpoint": "http://{host}:8123/v1", "model": "{corpus.MODEL}"}}'.encode()).decode()
    lines = [
        "zero-width: gpu\u200b-node\u200b-17 and soft hyphen: falcon-se\u00adcret-7\u00ad0b",
        "full-width: \uff47\uff50\uff55-node-17 serving \uff41\uff43\uff4d\uff45-labs/falcon-secret-70b",
        "padded 010.020.030.040, 10.020.030.40, hex 0x0a.0x14.0x1e.0x28 and 0x0a141e28",
        f"secret blob: {blob}",
        f"url-safe: {base64.urlsafe_b64encode(b'xx' + corpus.SERVED.encode()).decode()}",
    ]
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), {"peer_ip": ip}, {"logs/hidden.log": "\n".join(lines) + "\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    text = (result.out / "logs" / "hidden.log").read_text()
    plain = normalise(text).lower()
    for value in ("gpu-node-17", "falcon-secret-70b", "acme-labs", ip, "010.020.030.040", "0x0a.0x14.0x1e.0x28", "0x0a141e28"):
        assert value not in plain, value
    for token in text.split():
        for start in range(4):
            try:
                decoded = base64.b64decode(token[start:] + "=" * (-len(token[start:]) % 4), altchars=b"-_")
            except ValueError:
                continue
            for value in (host, corpus.MODEL, corpus.SERVED):
                assert value.encode() not in decoded, (value, token)


def test_a_value_split_across_two_lines_is_the_documented_limit(tmp_path):
    """What stays a limit: the line-by-line redactor does not join lines (docs/redaction.md says why)."""
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/wrapped.log": "model acme-labs/falcon-sec\nret-70b\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert "falcon-sec\nret-70b" in (result.out / "logs" / "wrapped.log").read_text()


# 9 ------------------------------------------------------------------------------------------


def test_in_addr_arpa_is_public_and_a_reverse_name_is_its_address(tmp_path):
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={"logs/dns.log": "PTR 40.30.20.10.in-addr.arpa -> peer\nzone in-addr.arpa served by 10.20.30.40\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY, map_out=tmp_path / "map.json")
    assert result.publishable, [str(f) for f in result.findings]
    lines = (result.out / "logs" / "dns.log").read_text().splitlines()
    assert lines[1].startswith("zone in-addr.arpa served by ip-")
    assert lines[0].split()[1] == lines[1].split()[-1]  # the reverse name and the address: one pseudonym
    assert not any(v.lower().endswith("in-addr.arpa") and e["class"] == "domain" for e in _map(tmp_path) for v in e["values"])
    assert scan_tree(result.out) == []


def test_a_serial_written_as_a_float_or_an_exponent_is_still_a_serial(tmp_path):
    """A JavaScript tool writes 1322021012345 as 1322021012345.0 or 1.322021012345e12: still the serial."""
    raw = corpus.make_raw_trial(tmp_path / "raw")
    path = raw / JOURNAL
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["private"] = {"endpoint": corpus.ENDPOINT}  # no other number that identifies
    lines[0] = (
        json.dumps(header).replace(
            '"private": {', '"private": {"board_serial": 7654321.0, "gpu_serial": 1.322021012345e12, "offset": -12, "ratio": 0.5, ', 1
        )
        + "\n"
    )
    path.write_text("".join(lines))
    plant(raw, files={"logs/boards.txt": "board 7654321, gpu 1322021012345\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    header = (result.out / JOURNAL).read_text().splitlines()[0]
    assert "7654321" not in header and "1.322021012345e12" not in header
    assert '"offset": -12, "ratio": 0.5' in header  # numbers that identify nothing stay as they were
    assert survivors(result.out, ["7654321", "1322021012345"]) == []


def test_a_stray_receipt_in_raw_evidence_earns_no_trust_for_pseudonym_shaped_values(tmp_path):
    """Values spelled like pseudonyms are left alone only in a bundle this tool wrote (receipt and a matching manifest)."""
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"hosts": ["host-7.acme-corp.internal"]},
        {
            "logs/cluster.log": "ssh host-7 uptime\n",
            "receipt.json": json.dumps(
                {"schema": "evidence-kit/receipt/v1", "tool_version": "0.1.0", "key_id": "none", "policy_digest": "sha256:" + "0" * 64, "counts": {}}
            )
            + "\n",
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert "ssh host-7 " not in (result.out / "logs" / "cluster.log").read_text()


def test_a_two_letter_host_name_is_hunted_as_a_whole_word(tmp_path):
    """The collector records socket.gethostname(); a machine called `vm` was published as is."""
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"), {"collector_host": "vm"}, {"logs/cluster.log": "collected on vm; vmstat and kvm are words\n"}
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert '"collector_host": "vm"' not in (result.out / JOURNAL).read_text()
    log = (result.out / "logs" / "cluster.log").read_text()
    assert "on vm;" not in log and "vmstat and kvm are words" in log


# A private key ----------------------------------------------------------------------------


def test_a_private_key_in_a_log_or_a_header_is_redacted_and_scanned(tmp_path):
    """A signing key pasted into a log (PEM on its lines) and into a header field (PEM on one line, its
    breaks escaped as JSON writes them) is replaced; its body is found by the scan wherever it stands;
    an RSA key's body lines in a log are replaced line by line (the last, short one holds a few bytes)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    pem = (
        Ed25519PrivateKey.generate()
        .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        .decode()
    )
    body = pem.splitlines()[1]
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        {"deploy_note": f"key was {pem}"},
        {"logs/startup.log": f"loading signing key\n{pem}key loaded; inline copy={body}\n"},
    )
    assert any(body in str(f) or "token" in str(f) for f in scan_tree(raw))
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    text = _texts(result.out)
    assert body not in text
    assert "BEGIN PRIVATE KEY" not in text  # a lone END line is left: it holds nothing
    rsa_pem = (
        rsa.generate_private_key(public_exponent=65537, key_size=1024)
        .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
        .decode()
    )
    raw2 = plant(corpus.make_raw_trial(tmp_path / "raw2"), files={"logs/tls.log": f"tls key follows\n{rsa_pem}"})
    result = redact_bundle(raw2, tmp_path / "out2", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    text = _texts(result.out)
    assert not [line for line in rsa_pem.splitlines()[1:-2] if line in text]  # every full body line is gone
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "page.html").write_text(f"<p>{body}</p>")
    assert [f for f in scan_tree(clean)], "the body alone is found by the scan"
